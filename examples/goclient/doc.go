// Package goclient shows hivegate's typed API used from Go with the generated
// Connect clients in github.com/hivegate/hivegate/gen. It holds only runnable
// examples (see example_test.go); each starts a simulated Hive node and a
// gateway in-process, so `go test ./examples/goclient` runs them for real.
package goclient
