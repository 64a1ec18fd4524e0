package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sync"
)

// Answer is the outcome of one call, as the front end needs it.
type Answer struct {
	Result json.RawMessage
	Err    *Error
	Cache  string // hit, miss, bypass, coalesced
	Route  string // the urls config key that routed the call
}

// Caller serves one call. The dispatcher implements it.
type Caller interface {
	CallJSONRPC(ctx context.Context, method string, params json.RawMessage) Answer
	Healthy() bool
}

// Starter is implemented by a Caller that can answer some calls at once,
// without an upstream request: a cache hit, an invalid method, a method with
// no route. The batch path uses it to answer such elements in place instead
// of starting a goroutine for each.
type Starter interface {
	// StartJSONRPC returns the answer and a nil continuation when the call
	// needs no upstream request; otherwise it returns a zero Answer and a
	// continuation that completes the call. A continuation holds no
	// resources until it runs, so one that is never called costs nothing.
	StartJSONRPC(method string, params json.RawMessage) (Answer, func(context.Context) Answer)
}

// Response headers that tell a client what happened to a single request.
const (
	HeaderCache = "X-Hivegate-Cache"
	HeaderRoute = "X-Hivegate-Route"
)

// HandlerOptions configure the JSON-RPC handler.
type HandlerOptions struct {
	Version         string // semver, for GET /
	OperatorMessage string
	MaxBatch        int   // default 50 (limits.max_batch_size)
	MaxBodyBytes    int64 // default 1 MiB (limits.max_body_bytes)
	MaxDepth        int   // default DefaultMaxDepth (limits.max_json_depth)
	Logger          *slog.Logger
}

// DefaultMaxBodyBytes is the default request body limit.
const DefaultMaxBodyBytes = 1 << 20

// Handler serves POST / (JSON-RPC, single or batch) and GET / (health).
type Handler struct {
	caller Caller
	opts   HandlerOptions
	bufs   sync.Pool
}

// NewHandler returns the JSON-RPC HTTP handler.
func NewHandler(c Caller, opts HandlerOptions) *Handler {
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = 50
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	h := &Handler{caller: c, opts: opts}
	h.bufs.New = func() any { b := make([]byte, 0, 4096); return &b }
	return h
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		h.health(w)
	case http.MethodPost:
		h.post(w, r)
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

type health struct {
	Status          string `json:"status"`
	Version         string `json:"version"`
	OperatorMessage string `json:"operator_message"`
}

func (h *Handler) health(w http.ResponseWriter) {
	st := health{Status: "OK", Version: h.opts.Version, OperatorMessage: h.opts.OperatorMessage}
	code := http.StatusOK
	if !h.caller.Healthy() {
		st.Status = "no backend reachable"
		code = http.StatusServiceUnavailable
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(st)
}

// maxPooledBuf is the largest buffer kept in the handler's pool; bigger
// ones (large bodies or answers) are left to the garbage collector so that
// one huge response does not pin its memory for the life of the process.
const maxPooledBuf = 1 << 20

func (h *Handler) getBuf() *[]byte { return h.bufs.Get().(*[]byte) }

func (h *Handler) putBuf(bp *[]byte) {
	if cap(*bp) > maxPooledBuf {
		return
	}
	*bp = (*bp)[:0]
	h.bufs.Put(bp)
}

func (h *Handler) post(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > h.opts.MaxBodyBytes {
		// Refused before reading a byte; the server closes the connection
		// rather than drain a body this large.
		h.writeError(w, Errorf(KindRequestTooLarge, "the body exceeds %d bytes", h.opts.MaxBodyBytes))
		return
	}
	bp := h.getBuf()
	defer h.putBuf(bp)
	body, err := readBody(r.Body, h.opts.MaxBodyBytes, (*bp)[:0])
	*bp = body[:0]
	if err != nil {
		if errors.Is(err, errBodyTooLarge) {
			h.writeError(w, Errorf(KindRequestTooLarge, "the body exceeds %d bytes", h.opts.MaxBodyBytes))
			return
		}
		h.writeError(w, NewError(KindParseError, "could not read the body", err))
		return
	}
	// The parsed requests alias body, which goes back to the pool when post
	// returns: every call below finishes before that (the dispatcher copies
	// what an upstream call that outlives its client needs).
	parsed, perr := ParseBody(body, h.opts.MaxBatch, h.opts.MaxDepth)
	if perr != nil {
		h.writeError(w, perr)
		return
	}
	out := h.getBuf()
	defer h.putBuf(out)
	if !parsed.Batch {
		h.single(r.Context(), w, parsed.Elements[0], out)
		return
	}
	if e := chargeBatch(r.Context(), len(parsed.Elements)); e != nil {
		h.writeError(w, e)
		return
	}
	answers := h.callBatch(r.Context(), parsed.Elements)
	b := append((*out)[:0], '[')
	for i, el := range parsed.Elements {
		if i > 0 {
			b = append(b, ',')
		}
		switch {
		case el.Err != nil:
			b = AppendError(b, el.Req.ID, el.Err)
		case answers[i].Err != nil:
			b = AppendError(b, el.Req.ID, answers[i].Err)
		default:
			b = AppendResult(b, el.Req.ID, answers[i].Result)
		}
	}
	b = append(b, ']')
	*out = b
	h.write(w, http.StatusOK, b)
}

// single answers a request that is not a batch. Only single requests get
// the cache and route headers: in a batch they would describe one element.
func (h *Handler) single(ctx context.Context, w http.ResponseWriter, el Element, out *[]byte) {
	if el.Err != nil {
		*out = AppendError((*out)[:0], el.Req.ID, el.Err)
		h.write(w, el.Err.HTTPStatus(), *out)
		return
	}
	a := h.caller.CallJSONRPC(ctx, el.Req.Method, el.Req.Params)
	if a.Cache != "" {
		w.Header().Set(HeaderCache, a.Cache)
	}
	if a.Route != "" {
		w.Header().Set(HeaderRoute, a.Route)
	}
	if a.Err != nil {
		*out = AppendError((*out)[:0], el.Req.ID, a.Err)
		h.write(w, a.Err.HTTPStatus(), *out)
		return
	}
	*out = AppendResult((*out)[:0], el.Req.ID, a.Result)
	h.write(w, http.StatusOK, *out)
}

// callBatch serves the valid elements of a batch concurrently and returns
// their answers by position. Elements the Caller can answer at once (cache
// hits) are answered in place; only those that need an upstream request get
// a goroutine.
func (h *Handler) callBatch(ctx context.Context, els []Element) []Answer {
	answers := make([]Answer, len(els))
	starter, _ := h.caller.(Starter)
	var wg sync.WaitGroup
	for i, el := range els {
		if el.Err != nil {
			continue
		}
		if starter == nil {
			wg.Go(func() { answers[i] = h.caller.CallJSONRPC(ctx, el.Req.Method, el.Req.Params) })
			continue
		}
		a, rest := starter.StartJSONRPC(el.Req.Method, el.Req.Params)
		if rest == nil {
			answers[i] = a
			continue
		}
		wg.Go(func() { answers[i] = rest(ctx) })
	}
	wg.Wait()
	return answers
}

func (h *Handler) writeError(w http.ResponseWriter, e *Error) {
	h.write(w, e.HTTPStatus(), AppendError(nil, nullID, e))
}

func (h *Handler) write(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

var errBodyTooLarge = errors.New("body too large")

// readBody reads at most limit bytes into buf.
func readBody(r io.Reader, limit int64, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return buf, errBodyTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
