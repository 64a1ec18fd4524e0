// Comparison benchmarks that need libraries hivegate does not use
// (fasthttp, gjson): a module of their own, so that the main module does
// not require them. Run: cd bench/compare && go test -run '^$' -bench . -benchmem ./...
module github.com/hivegate/hivegate/bench/compare

go 1.26.8

toolchain go1.26.11

require (
	github.com/hivegate/hivegate v0.0.0
	github.com/tidwall/gjson v1.20.1
	github.com/valyala/fasthttp v1.78.0
)

require (
	github.com/decred/dcrd/dcrec/secp256k1/v4 v4.4.1 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/molecule-man/go-brrr v1.3.1 // indirect
	github.com/mr-tron/base58 v1.3.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
	golang.org/x/crypto v0.59.0 // indirect
)

replace github.com/hivegate/hivegate => ../..
