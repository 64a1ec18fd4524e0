// Package soak holds hivegate's bounded soak test. It is built only with
// the soak build tag, so `go test ./...` does not run it:
//
//	go test -tags soak -run TestSoak -count=1 -v ./internal/soak -soak.duration=60s
//
// (make soak). For the duration it sends mixed traffic — cache hits, cache
// misses that keep the cache evicting, calls to a backend that flaps
// between healthy and several faults, gateway errors and batches — at the
// highest rate the machine allows to a gateway assembled in-process
// (internal/faults.Gateway on a loopback server). It checks that every
// answer carries its request's id and its request's own result (the
// backend echoes the call), that the goroutine count returns to its
// baseline once the load stops, and that the heap and the process RSS stay
// within the cache budget plus a fixed margin.
package soak
