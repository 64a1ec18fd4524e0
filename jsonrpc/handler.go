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

// Response headers that tell a client what happened to a single request.
const (
	HeaderCache = "X-Hivegate-Cache"
	HeaderRoute = "X-Hivegate-Route"
)

// HandlerOptions configure the JSON-RPC handler.
type HandlerOptions struct {
	Version         string // semver, for GET /
	OperatorMessage string
	MaxBatch        int   // default 50
	MaxBodyBytes    int64 // default 1 MiB
	MaxDepth        int   // default DefaultMaxDepth
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

func (h *Handler) post(w http.ResponseWriter, r *http.Request) {
	bp := h.bufs.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= 1<<20 {
			*bp = (*bp)[:0]
			h.bufs.Put(bp)
		}
	}()
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
	parsed, perr := ParseBody(body, h.opts.MaxBatch, h.opts.MaxDepth)
	if perr != nil {
		h.writeError(w, perr)
		return
	}
	ctx := r.Context()
	if !parsed.Batch {
		el := parsed.Elements[0]
		if el.Err != nil {
			h.write(w, el.Err.HTTPStatus(), AppendError(nil, el.Req.ID, el.Err))
			return
		}
		a := h.caller.CallJSONRPC(ctx, el.Req.Method, el.Req.Params)
		if a.Cache != "" {
			w.Header().Set(HeaderCache, a.Cache)
		}
		if a.Route != "" {
			w.Header().Set(HeaderRoute, a.Route)
		}
		out := h.bufs.Get().(*[]byte)
		defer h.bufs.Put(out)
		if a.Err != nil {
			*out = AppendError((*out)[:0], el.Req.ID, a.Err)
			h.write(w, a.Err.HTTPStatus(), *out)
			return
		}
		*out = AppendResult((*out)[:0], el.Req.ID, a.Result)
		h.write(w, http.StatusOK, *out)
		return
	}
	answers := make([]Answer, len(parsed.Elements))
	var wg sync.WaitGroup
	for i, el := range parsed.Elements {
		if el.Err != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = h.caller.CallJSONRPC(ctx, el.Req.Method, el.Req.Params)
		}()
	}
	wg.Wait()
	out := make([]byte, 0, 1024)
	out = append(out, '[')
	for i, el := range parsed.Elements {
		if i > 0 {
			out = append(out, ',')
		}
		switch {
		case el.Err != nil:
			out = AppendError(out, el.Req.ID, el.Err)
		case answers[i].Err != nil:
			out = AppendError(out, el.Req.ID, answers[i].Err)
		default:
			out = AppendResult(out, el.Req.ID, answers[i].Result)
		}
	}
	out = append(out, ']')
	h.write(w, http.StatusOK, out)
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
