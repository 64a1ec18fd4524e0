# hivegate — developer tasks. Tool versions are pinned in go.mod (protoc-gen-go,
# protoc-gen-connect-go) and tools/buf/go.mod (buf).
BUF := go tool -modfile=tools/buf/go.mod buf
GOLANGCI := go tool -modfile=tools/golangci-lint/go.mod golangci-lint
FUZZTIME ?= 20s

.PHONY: all test race vet lint generate checkgenerate generate-ts checkgenerate-ts e2e fuzz bench bench-compare bench-load soak ci

all: test

## test: the whole test suite (the README's test command).
test:
	go test ./...

race:
	go test -race ./...

vet:
	go vet ./...
	cd bench/compare && go vet ./...

## lint: go vet, golangci-lint (.golangci.yml), buf lint and the buf format check.
lint: vet
	$(GOLANGCI) run ./...
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

## generate-ts: regenerate web/src/gen (TypeScript, protoc-gen-es) from proto/
## and rebuild the committed page in web/dist. Needs node 20+ and npm.
generate-ts:
	cd web && npm ci --no-audit --no-fund
	$(BUF) generate --template buf.gen.ts.yaml
	cd web && npm run build

## checkgenerate-ts: fail when web/src/gen or web/dist differ from what generate-ts writes.
checkgenerate-ts:
	cd web && npm ci --no-audit --no-fund
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && \
	$(BUF) generate --template buf.gen.ts.yaml -o $$tmp && \
	diff -r web/src/gen $$tmp/web/src/gen && \
	(cd web && npx tsc --noEmit && HIVEGATE_WEB_OUT=$$tmp/dist node build.mjs) && \
	diff -r web/dist $$tmp/dist && echo "web/src/gen and web/dist are up to date"

## e2e: real clients against `hivegate demo`: the web/ page in Chromium over
## Connect and gRPC-Web, and @hiveio/dhive over JSON-RPC (tests/run.sh).
e2e:
	bash tests/run.sh

## fuzz: run every fuzz target for FUZZTIME each (a duration, or a count such as 100000x;
## CI uses a count: see .ci/run). FUZZMINIMIZETIME bounds the shrinking of each new input
## (Go's default of 60s stalls a run whose inputs are whole network exchanges).
FUZZMINIMIZETIME ?= 5s
fuzz:
	@for pkg in $$(go list ./...); do \
	  for f in $$(go test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$f"; go test -run='^$$' -fuzz="^$$f$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZETIME) $$pkg || exit 1; \
	  done; \
	done

SOAKTIME ?= 60s
## soak: bounded soak test (mixed hits, misses, errors, batches; a flapping
## backend) against an in-process gateway; checks ids, results, goroutines, memory.
soak:
	go test -tags soak -run TestSoak -count=1 -v ./internal/soak -soak.duration=$(SOAKTIME)

bench: bench-compare
	go test -run='^$$' -bench=. -benchmem ./...

## bench-compare: the comparisons with libraries hivegate does not use (fasthttp,
## gjson), in their own module so that hivegate's does not require them.
bench-compare:
	cd bench/compare && go test -run='^$$' -bench=. -benchmem ./...

## bench-load: load harness (issue 8): hivegate next to the machine's ceiling on loopback,
## ~2.5 minutes; writes bench/results/<date>-<host>.md and latest.md. Flags: BENCHLOADFLAGS="-help".
bench-load:
	@command -v wrk >/dev/null || apt-get install -y wrk
	go run ./bench/cmd/benchload $(BENCHLOADFLAGS)

ci:
	bash .ci/run
