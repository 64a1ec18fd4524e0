package guard

import (
	"net/http"
	"sync/atomic"
)

// placeWriter gives a request's max_in_flight place back as soon as its
// handler starts to answer (a final status, a body byte or a flush): the
// work the place bounds is done, and a client that reads its answer
// slowly, or not at all, then holds its connection (bounded by
// write_timeout) and its own per-client share, never a place that others
// are waiting for. It keeps the wrapped writer's Flush (gRPC and
// streaming need it) and lets http.ResponseController reach the rest
// through Unwrap.
type placeWriter struct {
	http.ResponseWriter
	g    *Guard
	held atomic.Bool
}

// free gives the place back, once.
func (w *placeWriter) free() {
	if w.held.CompareAndSwap(true, false) {
		w.g.inFlight.Add(-1)
	}
}

// WriteHeader frees the place on a final status (not on 1xx).
func (w *placeWriter) WriteHeader(code int) {
	if code >= http.StatusOK {
		w.free()
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write frees the place and writes b.
func (w *placeWriter) Write(b []byte) (int, error) {
	w.free()
	return w.ResponseWriter.Write(b)
}

// Flush frees the place and sends buffered data to the client.
func (w *placeWriter) Flush() {
	w.free()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap returns the wrapped writer, for http.ResponseController.
func (w *placeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
