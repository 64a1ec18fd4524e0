# hivegate — developer tasks. Tool versions are pinned in go.mod (protoc-gen-go,
# protoc-gen-connect-go) and tools/buf/go.mod (buf).
BUF := go tool -modfile=tools/buf/go.mod buf
FUZZTIME ?= 20s

.PHONY: all test race vet lint generate checkgenerate fuzz bench ci

all: test

## test: the whole test suite (the README's test command).
test:
	go test ./...

race:
	go test -race ./...

vet:
	go vet ./...

## lint: go vet, buf lint and the buf format check.
lint: vet
	$(BUF) lint
	$(BUF) format --diff --exit-code

## generate: regenerate gen/ from proto/.
generate:
	$(BUF) generate

## checkgenerate: fail when gen/ differs from what buf generate writes.
checkgenerate:
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && \
	$(BUF) generate -o $$tmp && \
	diff -r gen $$tmp/gen && echo "gen/ is up to date"

## fuzz: run every fuzz target for FUZZTIME each.
fuzz:
	@for pkg in $$(go list ./...); do \
	  for f in $$(go test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$f"; go test -run='^$$' -fuzz="^$$f$$" -fuzztime=$(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

bench:
	go test -run='^$$' -bench=. -benchmem ./...

ci:
	bash .ci/run
