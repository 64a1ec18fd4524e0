package stream

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"

	"github.com/coder/websocket"
)

// WSLimits bound one WebSocket connection.
type WSLimits struct {
	// MaxSubscriptions is how many subscriptions one connection may hold
	// (default 10).
	MaxSubscriptions int
	// MaxMessageBytes bounds a client message (default 16 KiB).
	MaxMessageBytes int64
}

func (l WSLimits) withDefaults() WSLimits {
	if l.MaxSubscriptions <= 0 {
		l.MaxSubscriptions = 10
	}
	if l.MaxMessageBytes <= 0 {
		l.MaxMessageBytes = 16 << 10
	}
	return l
}

// wsRequest is a JSON-RPC request of the WebSocket API.
type wsRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// wsSubscribe is subscribe's params: the stream, "blocks",
// "operations" or "transaction", and its Params (for "transaction": the
// signed transaction to broadcast, as hived's JSON).
type wsSubscribe struct {
	Stream      string          `json:"stream"`
	Transaction json.RawMessage `json:"transaction"`
	Params
}

// wsError is a JSON-RPC error object; Data carries the cursor of a
// subscription that ended.
type wsError struct {
	Code    int        `json:"code"`
	Message string     `json:"message"`
	Data    *ErrorBody `json:"data,omitempty"`
}

type wsResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *wsError        `json:"error,omitempty"`
}

// wsNotification is a message of a subscription: method "subscription"
// with params {subscription, result} (a Message), or method
// "subscription_error" with params {subscription, error} when it ended.
type wsNotification struct {
	JSONRPC string       `json:"jsonrpc"`
	Method  string       `json:"method"`
	Params  wsNoteParams `json:"params"`
}

type wsNoteParams struct {
	Subscription string `json:"subscription"`
	// Result is a *Message, or a *TxStatus for a transaction.
	Result any        `json:"result,omitempty"`
	Error  *ErrorBody `json:"error,omitempty"`
}

// wsConn is one WebSocket connection and its subscriptions.
type wsConn struct {
	s      *Service
	c      *websocket.Conn
	ctx    context.Context
	mu     sync.Mutex
	subs   map[string]context.CancelFunc
	nextID int
	wg     sync.WaitGroup
}

// serveWS serves the JSON-RPC subscription API on a WebSocket: subscribe
// returns a subscription id, whose messages come as notifications;
// unsubscribe ends one.
func (s *Service) serveWS(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{})
	if err != nil {
		return // Accept answered
	}
	c.SetReadLimit(s.wsLimits.MaxMessageBytes)
	ctx, cancel := context.WithCancel(r.Context())
	wc := &wsConn{s: s, c: c, ctx: ctx, subs: map[string]context.CancelFunc{}}
	defer func() {
		cancel()
		wc.wg.Wait()
		_ = c.CloseNow()
	}()
	for {
		typ, data, err := c.Read(ctx)
		if err != nil {
			return
		}
		if typ != websocket.MessageText {
			_ = c.Close(websocket.StatusUnsupportedData, "text messages only")
			return
		}
		var req wsRequest
		if err := json.Unmarshal(data, &req); err != nil || req.JSONRPC != "2.0" {
			wc.write(wsResponse{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &wsError{Code: -32600, Message: "invalid JSON-RPC request"}})
			continue
		}
		resp, start := wc.handle(req)
		wc.write(resp)
		if start != nil {
			start() // after the answer: notifications follow the id
		}
	}
}

// handle answers one request; start, when not nil, starts the
// subscription's notifications.
func (wc *wsConn) handle(req wsRequest) (resp wsResponse, start func()) {
	resp = wsResponse{JSONRPC: "2.0", ID: req.ID}
	if len(resp.ID) == 0 {
		resp.ID = json.RawMessage("null")
	}
	switch req.Method {
	case "subscribe":
		var p wsSubscribe
		if err := json.Unmarshal(req.Params, &p); err != nil || (p.Stream != "blocks" && p.Stream != "operations" && p.Stream != "transaction") {
			resp.Error = &wsError{Code: -32602, Message: `params must be {"stream": "blocks", "operations" or "transaction", ...}`}
			return resp, nil
		}
		subscribe := wc.subscribe
		if p.Stream == "transaction" {
			subscribe = wc.subscribeTx
		}
		id, start, err := subscribe(p)
		if err != nil {
			e := txBody(err)
			resp.Error = &wsError{Code: -32602, Message: e.Message, Data: &e}
			if e.Code == "resource_exhausted" {
				resp.Error.Code = -32000
			}
			return resp, nil
		}
		resp.Result = id
		return resp, start
	case "unsubscribe":
		var ids []string
		if err := json.Unmarshal(req.Params, &ids); err != nil || len(ids) != 1 {
			resp.Error = &wsError{Code: -32602, Message: `params must be ["<subscription id>"]`}
			return resp, nil
		}
		cancel, ok := wc.forget(ids[0])
		if ok {
			cancel()
		}
		resp.Result = ok
	default:
		resp.Error = &wsError{Code: -32601, Message: "method not found: use subscribe or unsubscribe"}
	}
	return resp, nil
}

// errTooManyOnConn refuses a subscription over ws_max_subscriptions.
var errTooManyOnConn = errors.New("too many subscriptions on this connection")

// hasRoom reports whether the connection may hold one more subscription.
func (wc *wsConn) hasRoom() bool {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	return len(wc.subs) < wc.s.wsLimits.MaxSubscriptions
}

// register gives a new subscription its id and its context (cancelled by
// unsubscribe) and counts its writer, which must call wc.wg.Done.
func (wc *wsConn) register() (context.Context, context.CancelFunc, string) {
	ctx, cancel := context.WithCancel(wc.ctx)
	wc.mu.Lock()
	wc.nextID++
	id := strconv.Itoa(wc.nextID)
	wc.subs[id] = cancel
	wc.mu.Unlock()
	wc.wg.Add(1)
	return ctx, cancel, id
}

// forget removes a subscription from the connection's table and returns
// its cancel function, if it was there.
func (wc *wsConn) forget(id string) (context.CancelFunc, bool) {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	cancel, ok := wc.subs[id]
	delete(wc.subs, id)
	return cancel, ok
}

// subscribe starts a subscription; start starts its writer.
func (wc *wsConn) subscribe(p wsSubscribe) (string, func(), error) {
	if !wc.hasRoom() {
		return "", nil, errTooManyOnConn
	}
	sub, err := wc.s.subscribe(p.Params, p.Stream == "operations")
	if err != nil {
		return "", nil, err
	}
	ctx, cancel, id := wc.register()
	return id, func() { go wc.run(ctx, cancel, id, sub) }, nil
}

// run writes a subscription's notifications until it ends.
func (wc *wsConn) run(ctx context.Context, cancel context.CancelFunc, id string, sub nexter) {
	defer wc.wg.Done()
	defer cancel()
	defer sub.Close()
	_ = pump(ctx, sub.next, func(msg Message) error {
		if ctx.Err() != nil {
			return ctx.Err() // unsubscribed: nothing more
		}
		if !wc.write(wsNotification{JSONRPC: "2.0", Method: "subscription", Params: wsNoteParams{Subscription: id, Result: &msg}}) {
			return errWSGone
		}
		return nil
	}, func(err error) error {
		if ctx.Err() != nil {
			return err // unsubscribed, or the connection closed: nothing to say
		}
		e := errorBody(err, sub.place())
		wc.write(wsNotification{JSONRPC: "2.0", Method: "subscription_error", Params: wsNoteParams{Subscription: id, Error: &e}})
		wc.forget(id)
		return err
	})
}

// subscribeTx broadcasts p.Transaction (a refusal is subscribe's error)
// and returns the subscription that streams its status.
func (wc *wsConn) subscribeTx(p wsSubscribe) (string, func(), error) {
	if !wc.hasRoom() {
		return "", nil, errTooManyOnConn
	}
	bctx, cancel := context.WithTimeout(wc.ctx, wc.s.sendTimeout)
	t, err := wc.s.hub.Broadcast(bctx, p.Transaction)
	cancel()
	if err != nil {
		return "", nil, err
	}
	ctx, cancel, id := wc.register()
	return id, func() {
		go func() {
			defer wc.wg.Done()
			defer cancel()
			defer t.Close()
			err := t.Track(ctx, func(st TxStatus) error {
				if !wc.write(wsNotification{JSONRPC: "2.0", Method: "subscription", Params: wsNoteParams{Subscription: id, Result: &st}}) {
					return errWSGone
				}
				return nil
			})
			if ctx.Err() == nil && err != nil && !errors.Is(err, errWSGone) {
				e := txBody(err)
				wc.write(wsNotification{JSONRPC: "2.0", Method: "subscription_error", Params: wsNoteParams{Subscription: id, Error: &e}})
			}
			wc.forget(id)
		}()
	}, nil
}

// errWSGone: the WebSocket connection closed.
var errWSGone = errors.New("the connection is gone")

// write sends v within the send timeout; false when the connection is
// gone (a write that times out closes it).
func (wc *wsConn) write(v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(wc.ctx, wc.s.sendTimeout)
	defer cancel()
	return wc.c.Write(ctx, websocket.MessageText, b) == nil
}
