// Package layers holds the test that keeps hivegate's package graph in
// the order of docs (docs/design.md, CONTRIBUTING.md): every import
// between hivegate's packages points down the layers, no front end imports
// a backend or the cache, and no shipped package imports a test helper.
// It has no code of its own.
package layers
