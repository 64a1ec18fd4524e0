// Package web holds hivegate's browser page, built from web/src by esbuild (web/build.mjs) into
// web/dist and committed, so that `go build` embeds it without npm.
//
// The page is an explorer of the gateway's typed API: every service and RPC
// of web/src/gen, a form per request message, calls with Connect-Web (Connect
// or gRPC-Web transport), results as tables, and paging by the responses'
// cursors. Its asset URLs are relative, so it can be served under any path
// prefix; with no ?gateway= query parameter it talks to the origin it was
// loaded from.
package web

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed dist
var dist embed.FS

// Dist returns the built page as a file system whose root holds index.html
// and the assets/ directory.
func Dist() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		// fs.Sub fails only for an invalid path; "dist" is valid.
		panic(err)
	}
	return sub
}

// Handler serves the built page. Mount it under a prefix with the prefix
// stripped, for example:
//
//	mux.Handle("GET /ui/", http.StripPrefix("/ui", web.Handler()))
func Handler() http.Handler {
	return http.FileServerFS(mainPage{Dist()}) // operator.go: without the operator page
}
