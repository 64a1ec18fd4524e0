package faults

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Fault is how a Server answers.
type Fault int

// The faults. Each names what the gateway's client should see.
const (
	// Healthy answers every request with Options.Result.
	Healthy Fault = iota
	// NoListener closes the listening socket: connections are refused by
	// the kernel (ECONNREFUSED), as when the node process is not running.
	// Setting another fault listens again on the same port.
	NoListener
	// Reset accepts the connection, reads the request and resets the
	// connection (TCP RST) without answering.
	Reset
	// ResetMidBody sends the headers and half of the body, then resets.
	ResetMidBody
	// SlowHeaders sends nothing until Options.Stall passes, Release is
	// called or the client goes away; then it answers as Healthy.
	SlowHeaders
	// SlowBody sends the headers and half of the body, then stalls like
	// SlowHeaders before sending the rest.
	SlowBody
	// Status5xx answers HTTP Options.Status (default 503).
	Status5xx
	// HTML answers HTTP 200 with an HTML error page, as a misconfigured
	// load balancer does.
	HTML
	// TruncatedJSON answers HTTP 200 with a complete HTTP body holding the
	// first part of a JSON-RPC response.
	TruncatedJSON
	// WrongID answers a valid JSON-RPC response with another request's id.
	WrongID
	// Huge answers a valid JSON-RPC response of Options.HugeBytes, streamed
	// without a Content-Length.
	Huge
)

var faultNames = [...]string{"healthy", "no listener", "reset", "reset mid-body", "slow headers",
	"slow body", "HTTP 5xx", "HTML", "truncated JSON", "wrong id", "huge"}

// String names the fault.
func (f Fault) String() string {
	if int(f) < len(faultNames) {
		return faultNames[f]
	}
	return "fault " + strconv.Itoa(int(f))
}

// ProbeMethod is the method of the backend pool's health probes; Server
// counts them apart from other calls.
const ProbeMethod = "jsonrpc.get_methods"

// Options tune a Server.
type Options struct {
	// Result computes the result of a healthy answer; nil means Echo.
	Result func(method string, params json.RawMessage) json.RawMessage
	// Stall is how long SlowHeaders and SlowBody wait; 0 means one minute.
	// A stalled request also ends when its client goes away, when Release
	// is called and when the server closes.
	Stall time.Duration
	// Status is the HTTP status of Status5xx; 0 means 503.
	Status int
	// HugeBytes is the size of a Huge answer; 0 means 2 MiB.
	HugeBytes int64
}

// Echo is the default healthy result: {"method":…,"params":…}, a function
// of the call that lets a test check that every answer belongs to its
// request.
func Echo(method string, params json.RawMessage) json.RawMessage {
	if len(params) == 0 {
		params = json.RawMessage("null")
	}
	b := append([]byte(`{"method":`), strconv.Quote(method)...)
	b = append(b, `,"params":`...)
	b = append(b, params...)
	return append(b, '}')
}

// Server is a fake Hive node on 127.0.0.1 whose fault can be changed at any
// time. Safe for concurrent use.
type Server struct {
	// URL is the server's base URL; it stays the same across NoListener.
	URL  string
	addr string
	opts Options

	fault     atomic.Int32
	calls     atomic.Int64 // requests other than probes
	probes    atomic.Int64
	stalled   atomic.Int64 // requests stalled now
	abandoned atomic.Int64 // stalled requests whose client went away
	batches   atomic.Int64 // JSON-RPC batches answered

	mu      sync.Mutex
	hs      *http.Server // nil while NoListener
	release chan struct{}
	closed  chan struct{}
	methods map[string]int64
}

// New starts a Server with the given fault.
func New(f Fault, opts Options) (*Server, error) {
	if opts.Result == nil {
		opts.Result = Echo
	}
	if opts.Stall <= 0 {
		opts.Stall = time.Minute
	}
	if opts.Status == 0 {
		opts.Status = http.StatusServiceUnavailable
	}
	if opts.HugeBytes <= 0 {
		opts.HugeBytes = 2 << 20
	}
	s := &Server{opts: opts, release: make(chan struct{}), closed: make(chan struct{}), methods: map[string]int64{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faults: listen: %w", err)
	}
	s.addr = ln.Addr().String()
	s.URL = "http://" + s.addr + "/"
	s.serve(ln)
	s.Set(f)
	return s, nil
}

func (s *Server) serve(ln net.Listener) {
	s.hs = &http.Server{Handler: http.HandlerFunc(s.handle), ReadHeaderTimeout: 10 * time.Second}
	go func(hs *http.Server) { _ = hs.Serve(ln) }(s.hs)
}

// Set changes the fault; requests already being answered keep theirs.
func (s *Server) Set(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault.Store(int32(f))
	select {
	case <-s.closed:
		return
	default:
	}
	switch {
	case f == NoListener && s.hs != nil:
		_ = s.hs.Close() // closes the listener and every connection
		s.hs = nil
	case f != NoListener && s.hs == nil:
		ln, err := net.Listen("tcp", s.addr)
		if err != nil {
			// The port was taken while closed: stay refused.
			s.fault.Store(int32(NoListener))
			return
		}
		s.serve(ln)
	}
}

// Fault returns the current fault.
func (s *Server) Fault() Fault { return Fault(s.fault.Load()) }

// Calls returns the number of requests received, health probes excluded.
func (s *Server) Calls() int64 { return s.calls.Load() }

// CallsOf returns the number of requests received for one method.
func (s *Server) CallsOf(method string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.methods[method]
}

// Probes returns the number of health probes received.
func (s *Server) Probes() int64 { return s.probes.Load() }

// Stalled returns the number of requests SlowHeaders or SlowBody hold now.
func (s *Server) Stalled() int64 { return s.stalled.Load() }

// Abandoned returns the number of stalled requests whose client (the
// gateway) went away before the answer: upstream work that was cancelled.
func (s *Server) Abandoned() int64 { return s.abandoned.Load() }

// Release ends the stall of every request stalled now; they answer.
func (s *Server) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.release)
	s.release = make(chan struct{})
}

// Close stops the server and frees every stalled request.
func (s *Server) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.closed:
		return
	default:
	}
	close(s.closed)
	if s.hs != nil {
		_ = s.hs.Close()
		s.hs = nil
	}
}

// request is what the server read of one JSON-RPC request.
type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		return
	}
	if len(body) > 0 && body[0] == '[' {
		s.handleBatch(w, r, body)
		return
	}
	var req request
	if json.Unmarshal(body, &req) != nil || len(req.ID) == 0 {
		http.Error(w, "not a JSON-RPC request", http.StatusBadRequest)
		return
	}
	s.count(req)
	healthy := s.answer(req)
	switch s.Fault() {
	case Healthy, NoListener:
		writeJSON(w, healthy)
	case Reset:
		reset(w, nil)
	case ResetMidBody:
		reset(w, healthy[:len(healthy)/2])
	case SlowHeaders:
		if s.stall(r) {
			writeJSON(w, healthy)
		}
	case SlowBody:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(healthy)))
		half := len(healthy) / 2
		_, _ = w.Write(healthy[:half])
		_ = http.NewResponseController(w).Flush()
		if s.stall(r) {
			_, _ = w.Write(healthy[half:])
		}
	case Status5xx:
		http.Error(w, "backend error", s.opts.Status)
	case HTML:
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>\n")
	case TruncatedJSON:
		writeJSON(w, healthy[:len(healthy)*2/3])
	case WrongID:
		writeJSON(w, s.answer(request{ID: otherID(req.ID), Method: req.Method, Params: req.Params}))
	case Huge:
		s.huge(w, r, req.ID)
	}
}

// count records one call received.
func (s *Server) count(req request) {
	if req.Method == ProbeMethod {
		s.probes.Add(1)
	} else {
		s.calls.Add(1)
	}
	s.mu.Lock()
	s.methods[req.Method]++
	s.mu.Unlock()
}

// handleBatch answers a JSON-RPC batch as hived does, an array of answers,
// under the Healthy and SlowHeaders faults (after the stall). Under any
// other fault it refuses the batch (HTTP 400), as a node without batch
// support does, so that the gateway sends the calls one by one and each
// meets the fault on its own.
func (s *Server) handleBatch(w http.ResponseWriter, r *http.Request, body []byte) {
	var reqs []request
	f := s.Fault()
	if json.Unmarshal(body, &reqs) != nil || len(reqs) == 0 || (f != Healthy && f != NoListener && f != SlowHeaders) {
		http.Error(w, "batch refused", http.StatusBadRequest)
		return
	}
	s.batches.Add(1)
	out := []byte{'['}
	for i, req := range reqs {
		s.count(req)
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, s.answer(req)...)
	}
	out = append(out, ']')
	if f == SlowHeaders && !s.stall(r) {
		return
	}
	writeJSON(w, out)
}

// Batches returns the number of JSON-RPC batches answered.
func (s *Server) Batches() int64 { return s.batches.Load() }

// answer is the healthy response to req.
func (s *Server) answer(req request) []byte {
	b := append([]byte(`{"jsonrpc":"2.0","id":`), req.ID...)
	b = append(b, `,"result":`...)
	b = append(b, s.opts.Result(req.Method, req.Params)...)
	return append(b, '}')
}

// stall waits for the stall to end; it reports false when the client went
// away first.
func (s *Server) stall(r *http.Request) bool {
	s.stalled.Add(1)
	defer s.stalled.Add(-1)
	s.mu.Lock()
	release := s.release
	s.mu.Unlock()
	t := time.NewTimer(s.opts.Stall)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		s.abandoned.Add(1)
		return false
	case <-t.C:
	case <-release:
	case <-s.closed:
	}
	return true
}

// huge streams a valid response of about HugeBytes in chunks.
func (s *Server) huge(w http.ResponseWriter, r *http.Request, id json.RawMessage) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":"`)
	chunk := bytes.Repeat([]byte("x"), 32<<10)
	for n := int64(0); n < s.opts.HugeBytes; n += int64(len(chunk)) {
		if _, err := w.Write(chunk); err != nil || r.Context().Err() != nil {
			return
		}
	}
	_, _ = io.WriteString(w, `"}`)
}

func writeJSON(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

// reset sends a 200 response head promising more than partial, then
// partial (when not nil), then resets the connection.
func reset(w http.ResponseWriter, partial []byte) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	if partial != nil {
		_, _ = fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", 2*len(partial)+1)
		_, _ = buf.Write(partial)
		_ = buf.Flush()
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // close with RST, not FIN
	}
	_ = conn.Close()
}

// otherID is an id that is not id.
func otherID(id json.RawMessage) json.RawMessage {
	if n, err := strconv.ParseInt(string(id), 10, 64); err == nil {
		return json.RawMessage(strconv.FormatInt(n+1_000_000, 10))
	}
	return json.RawMessage(`"not-` + strconv.Itoa(len(id)) + `"`)
}
