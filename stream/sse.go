package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// keepAlive is how long an SSE stream or a WebSocket stays silent before
// the server sends a comment (SSE) to keep proxies from closing it.
const keepAlive = 15 * time.Second

// Handler serves the JSON streams: GET /stream/blocks and
// /stream/operations (Server-Sent Events) and GET /stream/ws (WebSocket,
// JSON-RPC subscriptions).
func (s *Service) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /stream/blocks", s.serveSSEBlocks)
	mux.HandleFunc("GET /stream/operations", s.serveSSEOps)
	mux.HandleFunc("GET /stream/ws", s.serveWS)
	return longLived(mux)
}

// Paths are the paths Handler serves.
var Paths = []string{"GET /stream/blocks", "GET /stream/operations", "GET /stream/ws"}

// Params are a JSON stream's parameters (query parameters for SSE, the
// subscribe call's params for WebSocket).
type Params struct {
	// From is a block number or "head" (default).
	From string `json:"from"`
	// Cursor resumes after a message (SSE: the Last-Event-ID header wins).
	Cursor string `json:"cursor"`
	// Mode is "reversible" (default) or "irreversible".
	Mode        string   `json:"mode"`
	HeadersOnly bool     `json:"headers_only"`
	Types       []string `json:"types"`
	Accounts    []string `json:"accounts"`
	CustomJSON  []string `json:"custom_json_ids"`
	Virtual     bool     `json:"virtual"`
}

// start reads p's start and mode.
func (p Params) start() (Start, Mode, error) {
	var mode Mode
	switch p.Mode {
	case "", "reversible":
		mode = Reversible
	case "irreversible":
		mode = Irreversible
	default:
		return Start{}, 0, errors.New(`mode must be "reversible" or "irreversible"`)
	}
	if p.Cursor != "" {
		c, err := DecodeCursor(p.Cursor)
		if err != nil {
			return Start{}, 0, errors.New("cursor is not a cursor this gateway wrote")
		}
		return Start{Cursor: &c}, mode, nil
	}
	if p.From == "" || p.From == "head" {
		return Start{Head: true}, mode, nil
	}
	n, err := strconv.ParseUint(p.From, 10, 64)
	if err != nil || n == 0 {
		return Start{}, 0, errors.New(`from must be a block number or "head"`)
	}
	return Start{Block: n}, mode, nil
}

// queryParams reads an SSE request's parameters.
func queryParams(r *http.Request) Params {
	q := r.URL.Query()
	list := func(k string) []string {
		var out []string
		for _, v := range q[k] {
			for _, s := range strings.Split(v, ",") {
				if s = strings.TrimSpace(s); s != "" {
					out = append(out, s)
				}
			}
		}
		return out
	}
	p := Params{
		From: q.Get("from"), Cursor: q.Get("cursor"), Mode: q.Get("mode"),
		HeadersOnly: q.Get("headers_only") == "true", Types: list("types"), Accounts: list("accounts"),
		CustomJSON: list("custom_json_ids"), Virtual: q.Get("virtual") == "true",
	}
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		p.Cursor = id
	}
	return p
}

// nexter is a subscription as the JSON streams read it.
type nexter interface {
	next(ctx context.Context) (Message, error)
	place() Cursor
	Close()
}

type blockNexter struct {
	*Sub
	headersOnly bool
}

func (b blockNexter) next(ctx context.Context) (Message, error) {
	ev, err := b.Next(ctx)
	if err != nil {
		return Message{}, err
	}
	return blockMessage(ev, b.headersOnly), nil
}

func (b blockNexter) place() Cursor { return b.Place() }

type opNexter struct{ *OpSub }

func (o opNexter) next(ctx context.Context) (Message, error) {
	ev, err := o.Next(ctx)
	if err != nil {
		return Message{}, err
	}
	if ev.Op == nil {
		return blockMessage(ev.Fork, false), nil
	}
	return opMessage(*ev.Op, ev.LIB), nil
}

func (o opNexter) place() Cursor { return o.Place() }

// subscribe starts the subscription p asks for.
func (s *Service) subscribe(p Params, ops bool) (nexter, error) {
	start, mode, err := p.start()
	if err != nil {
		return nil, err
	}
	if !ops {
		sub, err := s.hub.Subscribe(start, mode)
		if err != nil {
			return nil, err
		}
		return blockNexter{sub, p.HeadersOnly}, nil
	}
	f, ok := NewFilter(p.Types, p.Accounts, p.CustomJSON, p.Virtual)
	if !ok {
		return nil, fmt.Errorf("a filter list has more than %d entries", maxFilterEntries)
	}
	sub, err := s.hub.SubscribeOps(start, mode, f)
	if err != nil {
		return nil, err
	}
	return opNexter{sub}, nil
}

// ErrorBody is the error a JSON stream ends with.
type ErrorBody struct {
	// Code is the Connect code: resource_exhausted, invalid_argument,
	// unavailable.
	Code    string `json:"code"`
	Message string `json:"message"`
	// Cursor is where to resume from.
	Cursor string `json:"cursor,omitempty"`
}

// errorBody describes err, a subscription's end or refusal.
func errorBody(err error, place Cursor) ErrorBody {
	e := ErrorBody{}
	if place.Num > 0 {
		e.Cursor = place.String()
	}
	switch {
	case errors.Is(err, ErrLagged):
		e.Code, e.Message = "resource_exhausted", ErrLagged.Error()+"; resume from the cursor"
	case errors.Is(err, ErrTooMany), errors.Is(err, errTooManyOnConn):
		e.Code, e.Message = "resource_exhausted", err.Error()+"; retry later"
	case errors.Is(err, ErrClosed):
		e.Code, e.Message = "unavailable", ErrClosed.Error()+"; resume from the cursor on another replica"
	case errors.Is(err, errUpstream):
		e.Code, e.Message = "unavailable", "the nodes did not answer; resume from the cursor"
	default:
		e.Code, e.Message = "invalid_argument", err.Error()
	}
	return e
}

func (s *Service) serveSSEBlocks(w http.ResponseWriter, r *http.Request) {
	s.serveSSE(w, r, false)
}

func (s *Service) serveSSEOps(w http.ResponseWriter, r *http.Request) { s.serveSSE(w, r, true) }

// serveSSE streams a subscription as Server-Sent Events: each message's id
// is its cursor, so an EventSource that reconnects resumes with
// Last-Event-ID.
func (s *Service) serveSSE(w http.ResponseWriter, r *http.Request, ops bool) {
	sub, err := s.subscribe(queryParams(r), ops)
	if err != nil {
		e := errorBody(err, Cursor{})
		status := http.StatusBadRequest
		if e.Code == "resource_exhausted" {
			status = http.StatusTooManyRequests
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(e)
		return
	}
	defer sub.Close()
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	_ = rc.SetWriteDeadline(time.Now().Add(s.sendTimeout))
	if rc.Flush() != nil {
		return
	}
	ctx := r.Context()
	var buf []byte
	for {
		wctx, cancel := context.WithTimeout(ctx, keepAlive)
		msg, err := sub.next(wctx)
		timedOut := wctx.Err() != nil && ctx.Err() == nil
		cancel()
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && timedOut:
			buf = append(buf[:0], ": keep-alive\n\n"...)
		case err != nil:
			b, _ := json.Marshal(errorBody(err, sub.place()))
			buf = append(append(append(buf[:0], "event: error\ndata: "...), b...), "\n\n"...)
		default:
			b, _ := json.Marshal(msg)
			buf = append(buf[:0], "id: "...)
			buf = append(buf, msg.Cursor...)
			buf = append(buf, "\nevent: "...)
			buf = append(buf, msg.Kind...)
			buf = append(buf, "\ndata: "...)
			buf = append(append(buf, b...), "\n\n"...)
		}
		_ = rc.SetWriteDeadline(time.Now().Add(s.sendTimeout))
		if _, werr := w.Write(buf); werr != nil || rc.Flush() != nil {
			return
		}
		if err != nil && !timedOut {
			return
		}
	}
}
