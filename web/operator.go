package web

import (
	"io/fs"
	"net/http"
)

// operatorDir is where web/build.mjs writes the operator page inside dist.
const operatorDir = "operator"

// OperatorDist returns the built operator page (web/src/operator): a file
// system whose root holds index.html and its assets/ directory. The
// gateway serves it on the admin listener only.
func OperatorDist() fs.FS {
	sub, err := fs.Sub(Dist(), operatorDir)
	if err != nil {
		// fs.Sub fails only for an invalid path; operatorDir is valid.
		panic(err)
	}
	return sub
}

// OperatorHandler serves the operator page. Mount it under a prefix with
// the prefix stripped, as Handler.
func OperatorHandler() http.Handler {
	return http.FileServerFS(OperatorDist())
}

// mainPage is dist without the operator page, which the public /ui/ must
// not serve.
type mainPage struct{ fs.FS }

// Open hides the operator page's directory.
func (m mainPage) Open(name string) (fs.File, error) {
	if name == operatorDir || len(name) > len(operatorDir) && name[:len(operatorDir)+1] == operatorDir+"/" {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return m.FS.Open(name)
}
