package jsonrpchttp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/guard"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/router"
)

// HandlerOptions configure the JSON-RPC handler.
type HandlerOptions struct {
	Version         string // semver, for GET /
	OperatorMessage string
	MaxBatch        int   // default 50 (limits.max_batch_size)
	MaxBodyBytes    int64 // default 1 MiB (limits.max_body_bytes)
	MaxDepth        int   // default jsonrpc.DefaultMaxDepth (limits.max_json_depth)
	Logger          *slog.Logger
	// Hooks are given to the dispatcher with every request's calls: the
	// quotas, the token policy and the metrics (dispatch.Hooks); nil adds
	// nothing. A call refused with a RetryAfter (over its quota) sets
	// Retry-After on the answer: a batch's longest.
	Hooks *dispatch.Hooks
	// BatchStarted, when set, is told the number of elements of every valid
	// batch before its calls are made (the access log's "batch(n)").
	BatchStarted func(ctx context.Context, elements int)
	// Nodes, when set, returns the state of every backend node for GET /.
	Nodes func() []NodeHealth
	// CompressMinBytes is the size from which an answer is gzip-encoded
	// for a client that sends Accept-Encoding: gzip (compress.go); 0 turns
	// compression off.
	CompressMinBytes int
}

// NodeHealth is one backend node as GET / shows it: by backend name and
// position, never by address. docs/api.md documents every field.
type NodeHealth struct {
	// Backend is the backend's configured name, Node the node's 1-based
	// position among its nodes.
	Backend string `json:"backend"`
	Node    int    `json:"node"`
	// Up is true once a health probe reached the node, until
	// node_fail_threshold calls or probes in a row fail.
	Up bool `json:"up"`
	// InService is true while the node is up and the prober judges it fit
	// to answer (fresh, plausible, in step with its backend's other nodes).
	InService bool `json:"in_service"`
	// Kind is what the node serves, as the prober found out: "hived",
	// "hivemind", "hafah", "jsonrpc" (answers, nothing more known), or
	// empty before its first answer.
	Kind string `json:"kind,omitempty"`
	// Lagging is set while the node is taken out of service for being
	// too far behind its backend's trusted head block.
	Lagging bool `json:"lagging,omitempty"`
	// Head is the node's head block (hived) or last imported block
	// (hivemind); HeadTime that block's time; HeadAge its age in seconds
	// when GET / answered; LIB its last irreversible block (hived).
	Head     uint64     `json:"head_block,omitempty"`
	HeadTime *time.Time `json:"head_block_time,omitempty"`
	HeadAge  *float64   `json:"head_block_age_seconds,omitempty"`
	LIB      uint64     `json:"last_irreversible_block,omitempty"`
	// Reason says why the node is not in service.
	Reason string `json:"reason,omitempty"`
}

// DefaultMaxBodyBytes is the default request body limit, the Guard's.
const DefaultMaxBodyBytes = guard.DefaultMaxBodyBytes

// Dispatcher is what the handler serves calls through:
// *dispatch.Dispatcher, whose Serve is the one door every call takes.
type Dispatcher interface {
	// Router is the router the handler parses calls with.
	Router() *router.Router
	// Serve serves the calls into results, by position (dispatch.Dispatcher.Serve).
	Serve(ctx context.Context, h *dispatch.Hooks, calls []dispatch.Call, results []dispatch.Result)
	// Healthy reports whether any backend can be reached (GET /).
	Healthy() bool
}

// Handler serves POST / (JSON-RPC, single or batch) and GET / (health).
type Handler struct {
	d         Dispatcher
	opts      HandlerOptions
	exchanges sync.Pool // *exchange
	values    headerValues
	parser    jsonrpc.Parser
	// answerZ and formZ pool the deflate writers of gzip-encoded answers
	// and of the forms kept with cache entries (compress.go).
	answerZ, formZ compressors
}

// NewHandler returns the JSON-RPC HTTP handler, serving calls through d.
func NewHandler(d Dispatcher, opts HandlerOptions) *Handler {
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = 50
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	h := &Handler{d: d, opts: opts}
	h.answerZ.level, h.formZ.level = answerLevel, formLevel
	h.values.init()
	h.exchanges.New = func() any {
		return &exchange{in: make([]byte, 0, 4096), out: response{buf: make([]byte, 0, 4096)}}
	}
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
	Status          string       `json:"status"`
	Version         string       `json:"version"`
	OperatorMessage string       `json:"operator_message"`
	Problems        []string     `json:"problems,omitempty"`
	Nodes           []NodeHealth `json:"nodes,omitempty"`
}

// health answers GET /: 200 with status "OK" while every backend has a node
// in service, else 503 with status "unavailable" and the problems (which
// backend has no node in service, and why each of its nodes is out).
func (h *Handler) health(w http.ResponseWriter) {
	st := health{Status: "OK", Version: h.opts.Version, OperatorMessage: h.opts.OperatorMessage}
	if h.opts.Nodes != nil {
		st.Nodes = h.opts.Nodes()
		st.Problems = healthProblems(st.Nodes)
	}
	if len(st.Problems) == 0 && !h.d.Healthy() {
		st.Problems = []string{"no backend reachable"}
	}
	code := http.StatusOK
	if len(st.Problems) > 0 {
		st.Status = "unavailable"
		code = http.StatusServiceUnavailable
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(st)
}

// healthProblems lists the backends none of whose nodes is in service,
// each with the reasons of its nodes.
func healthProblems(nodes []NodeHealth) []string {
	var out []string
	for i := 0; i < len(nodes); {
		j, serving := i, false
		var why []string
		for ; j < len(nodes) && nodes[j].Backend == nodes[i].Backend; j++ {
			n := nodes[j]
			serving = serving || n.InService
			reason := n.Reason
			if reason == "" {
				reason = "not in service"
			}
			why = append(why, "node "+strconv.Itoa(n.Node)+": "+reason)
		}
		if !serving {
			out = append(out, "backend "+nodes[i].Backend+": no node in service ("+strings.Join(why, "; ")+")")
		}
		i = j
	}
	return out
}

// maxPooledBuf is the largest buffer kept in the handler's pool; bigger
// ones (large bodies or answers) are left to the garbage collector so that
// one huge response does not pin its memory for the life of the process.
const maxPooledBuf = 1 << 20

// exchange is the per-request scratch state of post: the body and answer
// buffers, the parsed body, the calls given to the dispatcher with their
// keys and their results. Exchanges are pooled, so a cache hit allocates
// none of it.
type exchange struct {
	in      []byte
	body    jsonrpc.Body
	calls   []dispatch.Call
	results []dispatch.Result
	at      []int  // calls[j] is element at[j] of a batch
	keys    []byte // the calls' keys (router.Router.ParseKey)
	out     response
}

func (h *Handler) getExchange() *exchange { return h.exchanges.Get().(*exchange) }

// putExchange returns x to the pool, dropping buffers too large to keep
// and every reference into the request and the results (cached results
// must not stay reachable from the pool).
func (h *Handler) putExchange(x *exchange) {
	if cap(x.in) > maxPooledBuf {
		x.in = nil
	}
	x.in = x.in[:0]
	if cap(x.keys) > maxPooledBuf {
		x.keys = nil
	}
	x.keys = x.keys[:0]
	clear(x.body.Elements[:cap(x.body.Elements)])
	// The calls and results beyond their length were cleared when they
	// were last used: a single request after a large batch clears one of
	// each, not the batch's capacity.
	clear(x.calls)
	clear(x.results)
	x.out.reset()
	h.exchanges.Put(x)
}

// parse makes the dispatcher's calls of the valid elements of els, into
// x's reused calls, results and keys; x.at maps them back to elements.
func (h *Handler) parse(x *exchange, els []jsonrpc.Element) {
	r := h.d.Router()
	x.calls, x.results, x.at = x.calls[:0], x.results[:0], x.at[:0]
	keys := x.keys[:0]
	for i, el := range els {
		if el.Err != nil {
			continue
		}
		x.calls = append(x.calls, dispatch.Call{})
		x.results = append(x.results, dispatch.Result{})
		x.at = append(x.at, i)
		c := &x.calls[len(x.calls)-1]
		var err error
		if keys, err = r.ParseKey(&c.Call, keys, el.Req.Method, el.Req.Params); err != nil {
			c.Call = router.Call{UpstreamMethod: el.Req.Method}
			c.Invalid = dispatch.InvalidMethod(err)
		}
	}
	x.keys = keys[:0]
}

func (h *Handler) post(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > h.opts.MaxBodyBytes {
		// Refused without reading the body.
		h.refuseTooLarge(w, r)
		return
	}
	src, ok := h.requestBody(w, r, h.opts.MaxBodyBytes) // gzip-encoded or as is (encoding.go)
	if !ok {
		return
	}
	x := h.getExchange()
	defer h.putExchange(x)
	body, err := readBody(src, h.opts.MaxBodyBytes, x.in[:0])
	x.in = body[:0]
	if err != nil {
		if errors.Is(err, errBodyTooLarge) {
			h.refuseTooLarge(w, r)
			return
		}
		h.writeError(w, jsonrpc.NewError(jsonrpc.KindParseError, readError(err), err))
		return
	}
	// The parsed requests alias body, which goes back to the pool when post
	// returns: every call below finishes before that (the dispatcher copies
	// what an upstream call that outlives its client needs).
	parsed := &x.body
	if perr := h.parser.Parse(parsed, body, h.opts.MaxBatch, h.opts.MaxDepth); perr != nil {
		h.writeError(w, perr)
		return
	}
	out := &x.out
	if h.opts.CompressMinBytes > 0 {
		// Added to what the CORS layer wrote (Vary: Origin), never in
		// place of it; the shared slice has no room, so append copies it.
		if v := w.Header()["Vary"]; len(v) == 0 {
			w.Header()["Vary"] = h.values.vary
		} else {
			w.Header()["Vary"] = append(v, h.values.vary...)
		}
		out.gz = acceptsGzip(r.Header)
	}
	if !parsed.Batch {
		h.single(r.Context(), w, x, parsed.Elements[0])
		return
	}
	if f := h.opts.BatchStarted; f != nil {
		f(r.Context(), len(parsed.Elements))
	}
	if e := guard.ChargeBatch(r.Context(), len(parsed.Elements)); e != nil {
		h.writeError(w, e)
		return
	}
	h.parse(x, parsed.Elements)
	if len(x.calls) > 0 {
		h.d.Serve(r.Context(), h.opts.Hooks, x.calls, x.results)
	}
	out.buf = append(out.buf, '[')
	j := 0
	for i, el := range parsed.Elements {
		if i > 0 {
			out.buf = append(out.buf, ',')
		}
		if el.Err != nil {
			out.buf = jsonrpc.AppendError(out.buf, el.Req.ID, el.Err)
			continue
		}
		res := &x.results[j]
		j++
		if res.Err != nil {
			out.buf = jsonrpc.AppendError(out.buf, el.Req.ID, res.Err)
			continue
		}
		out.appendResultForms(el.Req.ID, res.Result, hitForms(res))
	}
	out.buf = append(out.buf, ']')
	var retry time.Duration
	for i := range x.results {
		retry = max(retry, x.results[i].RetryAfter)
	}
	if retry > 0 {
		w.Header().Set(jsonrpc.HeaderRetryAfter, jsonrpc.RetryAfter(retry))
	}
	h.send(w, http.StatusOK, out)
	for i := range x.results {
		x.results[i].Release() // out may refer to large results until sent
	}
}

// single answers a request that is not a batch. Only single requests get
// the cache and route headers: in a batch they would describe one element.
func (h *Handler) single(ctx context.Context, w http.ResponseWriter, x *exchange, el jsonrpc.Element) {
	out := &x.out
	if el.Err != nil {
		out.buf = jsonrpc.AppendError(out.buf, el.Req.ID, el.Err)
		h.send(w, el.Err.HTTPStatus(), out)
		return
	}
	h.parse(x, x.body.Elements[:1])
	h.d.Serve(ctx, h.opts.Hooks, x.calls, x.results)
	res := &x.results[0]
	hdr := w.Header()
	if res.Cache != "" {
		hdr[jsonrpc.HeaderCache] = h.values.of(string(res.Cache))
	}
	if res.Route != "" {
		hdr[jsonrpc.HeaderRoute] = h.values.of(res.Route)
	}
	if res.RetryAfter > 0 {
		hdr.Set(jsonrpc.HeaderRetryAfter, jsonrpc.RetryAfter(res.RetryAfter))
	}
	if res.Err != nil {
		out.buf = jsonrpc.AppendError(out.buf, el.Req.ID, res.Err)
		h.send(w, res.Err.HTTPStatus(), out)
		return
	}
	out.appendResultForms(el.Req.ID, res.Result, hitForms(res))
	h.send(w, http.StatusOK, out)
	res.Release() // out may refer to a large Result until sent
}

// hitForms is where the compressed form of a result may be kept: the
// cache entry of a hit. A result read once (the miss that stored it) is
// compressed with its answer, not kept twice.
func hitForms(res *dispatch.Result) dispatch.Forms {
	if res.Cache != dispatch.CacheHit {
		return nil
	}
	return res.Forms
}

// refuseTooLarge answers a request whose body exceeds MaxBodyBytes with
// -32014 and HTTP 413, and makes sure the client can read that answer.
// net/http closes such a connection after the answer, and a client still
// sending its body would meet a reset that can destroy the answer before
// the client reads it; net/http avoids this with a lingering close (it
// half-closes and waits before closing) when a handler's read ran past an
// http.MaxBytesReader. It does not otherwise when the client sent
// "Connection: close", so the handler reads one byte more through such a
// reader, bound to the server's own ResponseWriter (wrappers are unwrapped),
// to tell net/http that the body is over its limit. That read waits at most
// tooLargeReadWait for a client that sends nothing, and is skipped for a
// client that asked "Expect: 100-continue": it sends no body before it is
// told to, and is not.
func (h *Handler) refuseTooLarge(w http.ResponseWriter, r *http.Request) {
	if !strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
		base := w
		for {
			u, ok := base.(interface{ Unwrap() http.ResponseWriter })
			if !ok {
				break
			}
			base = u.Unwrap()
		}
		_ = http.NewResponseController(base).SetReadDeadline(time.Now().Add(tooLargeReadWait))
		var one [1]byte
		_, _ = http.MaxBytesReader(base, r.Body, 0).Read(one[:])
	}
	h.writeError(w, jsonrpc.Errorf(jsonrpc.KindRequestTooLarge, "the body exceeds %d bytes", h.opts.MaxBodyBytes))
}

// tooLargeReadWait bounds refuseTooLarge's read of one byte.
const tooLargeReadWait = 100 * time.Millisecond

func (h *Handler) writeError(w http.ResponseWriter, e *jsonrpc.Error) {
	h.send(w, e.HTTPStatus(), &response{buf: jsonrpc.AppendError(nil, nullID, e)})
}

// send writes the answer assembled in out with its Content-Type and, when
// net/http would not work it out itself, its Content-Length.
func (h *Handler) send(w http.ResponseWriter, status int, out *response) {
	if out.gz && out.len() >= h.opts.CompressMinBytes {
		h.sendGzip(w, status, out) // compress.go
		return
	}
	hdr := w.Header()
	hdr["Content-Type"] = h.values.contentType
	if n := out.len(); n > autoContentLength {
		hdr.Set("Content-Length", strconv.Itoa(n))
	}
	w.WriteHeader(status)
	out.writeTo(w)
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
