package backend

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/jsonwire"
)

// A ws:// or wss:// node is called over WebSocket connections
// (github.com/coder/websocket), as jussi called hived: up to
// Options.WSConnsPerNode connections per node, opened when calls need them,
// each carrying any number of calls at once. A call is one text message
// {"jsonrpc":"2.0","id":"N",...}; the pool's ids are random (ids.go), and
// each connection's reader hands every answer to the call waiting on its
// id on that connection, and to no other: an answer for an id nobody on
// the connection waits for is refused and drops the connection (read).
//
// A call has the same deadline, retries, answer checks, size cap, health
// accounting and metrics as on an HTTP node (Pool.Call makes both). When a
// connection breaks, every call waiting on it fails as a transport failure,
// which Call retries where the route allows (on another node first), and
// the connection is dropped; the next call opens a new one. Opening
// connections that keep failing backs off (wsDialBackoff), and meanwhile
// calls fail at once, so that a retry goes to another node.

// Bounds of the back-off between failed connection attempts to a node.
const (
	wsDialBackoffMin = 50 * time.Millisecond
	wsDialBackoffMax = 5 * time.Second
)

// wsTailLen is how much of the end of an answer over the size cap is kept
// to find its id (hived writes the id last).
const wsTailLen = 64

// errWSOutOfStep is the cause of a connection dropped because an answer on
// it named no call.
var errWSOutOfStep = errors.New("backend: an answer on the WebSocket connection names no call")

// errWSStray is the cause of a connection dropped because an answer on it
// carried an id no call on it was sent with, or one already answered: the
// node answered what it was not asked (a forged answer for an id it
// guessed) and its other answers on the connection are not trusted either.
var errWSStray = errors.New("backend: an answer on the WebSocket connection carries an id not sent on it")

// wsAbandonedIDs is how many ids of calls that stopped waiting (their
// context ended) a connection remembers, so that their late answers are
// dropped quietly rather than taken for stray ones.
const wsAbandonedIDs = 256

// wsNode is a ws(s) node's WebSocket connections.
type wsNode struct {
	n      *node
	max    int
	limit  int64 // Options.MaxResponseBytes
	dial   time.Duration
	client *http.Client // for the opening handshake
	header http.Header

	mu      sync.Mutex
	conns   []*wsConn
	dialing int
	fails   int           // failed connection attempts in a row
	retryAt time.Time     // no connection attempt before
	changed chan struct{} // closed (and replaced) when conns or dialing change
}

// wsConn is one WebSocket connection and the calls waiting on it.
type wsConn struct {
	c         *websocket.Conn
	pending   map[uint64]chan wsReply // guarded by wsNode.mu
	idleClose bool                    // close once no call waits (Pool.Close)
	dead      bool
	// abandoned holds the ids of the latest calls that stopped waiting
	// (a ring: next is where the next one goes), guarded by wsNode.mu.
	abandoned []uint64
	next      int
}

// abandon records id as a call that stopped waiting (called with mu held).
func (c *wsConn) abandon(id uint64) {
	if len(c.abandoned) < wsAbandonedIDs {
		c.abandoned = append(c.abandoned, id)
		return
	}
	c.abandoned[c.next] = id
	c.next = (c.next + 1) % wsAbandonedIDs
}

// late reports whether id is that of a call that stopped waiting, and
// forgets it: a second answer to it is a stray one (called with mu held).
func (c *wsConn) late(id uint64) bool {
	for i, a := range c.abandoned {
		if a == id {
			c.abandoned[i] = 0 // ids are never 0
			return true
		}
	}
	return false
}

// wsReply is what a waiting call gets: its answer's bytes or a failure.
type wsReply struct {
	raw []byte
	f   *failure
}

// newWSNode returns the WebSocket side of node n.
func newWSNode(n *node, opts Options) *wsNode {
	d := &net.Dialer{Timeout: opts.DialTimeout, KeepAlive: tcpKeepAlive}
	t := &http.Transport{
		DialContext:            d.DialContext,
		TLSHandshakeTimeout:    opts.DialTimeout,
		MaxResponseHeaderBytes: maxResponseHeaderBytes,
		DisableCompression:     true,
		DisableKeepAlives:      true, // each handshake's connection becomes the WebSocket
	}
	if n.url.Scheme == "wss" {
		conf := &tls.Config{}
		if opts.TLSConfig != nil {
			conf = opts.TLSConfig.Clone()
		}
		if conf.ServerName == "" {
			conf.ServerName = n.url.Hostname()
		}
		conf.NextProtos = []string{"http/1.1"}
		t.TLSClientConfig = conf
	}
	return &wsNode{
		n:       n,
		max:     opts.WSConnsPerNode,
		limit:   opts.MaxResponseBytes,
		dial:    opts.DialTimeout,
		client:  &http.Client{Transport: t},
		header:  http.Header{"User-Agent": {opts.UserAgent}},
		changed: make(chan struct{}),
	}
}

// wsAttempt makes one attempt of a call on a ws(s) node.
func (p *Pool) wsAttempt(ctx context.Context, n *node, body []byte, id uint64, req Request) (envelope, *failure) {
	raw, f := n.ws.roundTrip(ctx, p, body, id)
	if f != nil {
		return envelope{}, f
	}
	env, _, f := p.checkSingle(n, raw, nil, true, id, req)
	return env, f
}

// roundTrip sends body, the call numbered id, on one of the node's
// connections and waits for its answer, within ctx.
func (w *wsNode) roundTrip(ctx context.Context, p *Pool, body []byte, id uint64) ([]byte, *failure) {
	c, f := w.conn(ctx, p)
	if f != nil {
		return nil, f
	}
	ch := make(chan wsReply, 1)
	w.mu.Lock()
	if _, dup := c.pending[id]; c.dead || dup {
		// dup: two calls drew the same random id (odds 2^-64); the later
		// one must not take the other's answer.
		w.mu.Unlock()
		return nil, transportFailure(w.n, io.ErrUnexpectedEOF, false)
	}
	c.pending[id] = ch
	w.mu.Unlock()
	if err := c.c.Write(ctx, websocket.MessageText, body); err != nil {
		w.forget(c, id)
		if ctx.Err() != nil {
			return nil, ioFailure(ctx, w.n, ctx.Err(), false)
		}
		// A failed write leaves the connection in an unknown state: drop it,
		// and with it the calls waiting on it.
		w.drop(c, p, err)
		return nil, transportFailure(w.n, err, false)
	}
	select {
	case r := <-ch:
		return r.raw, r.f
	case <-ctx.Done():
		w.forget(c, id)
		return nil, ioFailure(ctx, w.n, ctx.Err(), false)
	}
}

// forget stops waiting for the answer to id (a late answer is dropped).
func (w *wsNode) forget(c *wsConn, id uint64) {
	w.mu.Lock()
	if _, ok := c.pending[id]; ok {
		delete(c.pending, id)
		c.abandon(id)
	}
	closeNow := c.idleClose && len(c.pending) == 0 && !c.dead
	w.mu.Unlock()
	if closeNow {
		_ = c.c.CloseNow()
	}
}

// conn returns the connection a call goes on: the open one with the
// fewest calls waiting, or a new one while the node has fewer than max and
// every open one is busy.
func (w *wsNode) conn(ctx context.Context, p *Pool) (*wsConn, *failure) {
	for {
		w.mu.Lock()
		var best *wsConn
		for _, c := range w.conns {
			if best == nil || len(c.pending) < len(best.pending) {
				best = c
			}
		}
		canDial := len(w.conns)+w.dialing < w.max
		if best != nil && (len(best.pending) == 0 || !canDial) {
			w.mu.Unlock()
			return best, nil
		}
		if canDial && time.Now().Before(w.retryAt) {
			if best != nil {
				w.mu.Unlock()
				return best, nil
			}
			w.mu.Unlock()
			return nil, &failure{
				kind:   jsonrpc.KindUpstreamUnavailable,
				detail: "could not be reached",
				cause:  fmt.Errorf("WS %s: reconnecting after %d failed attempts", shownURL(w.n.url), w.fails),
				retry:  true,
				down:   true,
			}
		}
		if canDial {
			w.dialing++
			w.mu.Unlock()
			c, f := w.open(ctx, p)
			if f != nil && best != nil && ctx.Err() == nil {
				return best, nil // a busy connection beats none
			}
			return c, f
		}
		wait := w.changed
		w.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ioFailure(ctx, w.n, ctx.Err(), false)
		}
	}
}

// open dials a new connection (the caller counted it in dialing) and
// starts its reader.
func (w *wsNode) open(ctx context.Context, p *Pool) (*wsConn, *failure) {
	dctx, cancel := context.WithTimeout(ctx, w.dial)
	defer cancel()
	c, resp, err := websocket.Dial(dctx, w.n.url.String(), &websocket.DialOptions{HTTPClient: w.client, HTTPHeader: w.header})
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
	w.mu.Lock()
	// Deferred calls run last first: signal runs before Unlock, with mu
	// held, so that two dials ending together never close one channel twice.
	defer w.mu.Unlock()
	defer w.signal()
	w.dialing--
	if err != nil {
		if ctx.Err() != nil {
			return nil, ioFailure(ctx, w.n, ctx.Err(), false)
		}
		w.fails++
		w.retryAt = time.Now().Add(wsDialBackoff(w.fails))
		cause := describeTransport(w.n, err, "WS")
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			return nil, &failure{
				kind:   jsonrpc.KindUpstreamUnavailable,
				detail: "refused the WebSocket connection (HTTP " + strconv.Itoa(resp.StatusCode) + ")",
				cause:  cause, retry: true, down: true,
			}
		}
		return nil, transportFailure(w.n, cause, false)
	}
	c.SetReadLimit(-1) // the reader applies the size cap itself, per answer
	w.fails, w.retryAt = 0, time.Time{}
	wc := &wsConn{c: c, pending: map[uint64]chan wsReply{}}
	w.conns = append(w.conns, wc)
	go w.read(wc, p)
	return wc, nil
}

// signal wakes the calls waiting for a connection (called with mu held).
func (w *wsNode) signal() {
	close(w.changed)
	w.changed = make(chan struct{})
}

// wsDialBackoff is the jittered pause after the fails-th failed connection
// attempt in a row: 50ms, 100ms, 200ms... up to 5s.
func wsDialBackoff(fails int) time.Duration {
	d := wsDialBackoffMin << min(fails-1, 10)
	d = min(d, wsDialBackoffMax)
	return d/2 + rand.N(d/2+1)
}

// read hands every answer on c to the call waiting on its id, until the
// connection breaks. An answer whose id no call on c is waiting for — one
// never sent on c, or already answered — breaks it: it is refused, counts
// as a failure of the node, and the connection is dropped (drop). The late
// answer of a call that stopped waiting is only dropped.
func (w *wsNode) read(c *wsConn, p *Pool) {
	for {
		_, r, err := c.c.Reader(context.Background())
		if err != nil {
			w.drop(c, p, err)
			return
		}
		raw, over, err := readWSMessage(r, w.limit)
		if err != nil {
			w.drop(c, p, err)
			return
		}
		id, ok := answerID(raw, over)
		if !ok {
			w.drop(c, p, fmt.Errorf("%w: starts %q", errWSOutOfStep, raw[:min(len(raw), 200)]))
			return
		}
		w.mu.Lock()
		ch, waiting := c.pending[id]
		delete(c.pending, id)
		stray := !waiting && !c.late(id)
		closeNow := c.idleClose && len(c.pending) == 0
		w.mu.Unlock()
		if stray {
			err := fmt.Errorf("%w: starts %q", errWSStray, raw[:min(len(raw), 200)])
			w.n.health.failure(p.logger, w.n, describeTransport(w.n, err, "WS"))
			w.drop(c, p, err)
			return
		}
		if ch != nil {
			if over {
				ch <- wsReply{f: p.tooLarge(w.n, "message")}
			} else {
				ch <- wsReply{raw: raw}
			}
		}
		if closeNow {
			_ = c.c.CloseNow() // the next Reader fails and drops c
		}
	}
}

// drop removes a broken connection and fails every call waiting on it as a
// transport failure (Call retries those where the route allows).
func (w *wsNode) drop(c *wsConn, p *Pool, err error) {
	w.mu.Lock()
	if c.dead {
		w.mu.Unlock()
		return
	}
	c.dead = true
	for i, o := range w.conns {
		if o == c {
			w.conns = append(w.conns[:i], w.conns[i+1:]...)
			break
		}
	}
	pending := c.pending
	c.pending = map[uint64]chan wsReply{}
	w.signal()
	w.mu.Unlock()
	_ = c.c.CloseNow()
	if len(pending) == 0 {
		return
	}
	cause := describeTransport(w.n, err, "WS")
	p.logger.Debug("backend WebSocket connection dropped", "backend", w.n.name, "node", w.n.index, "calls_waiting", len(pending), "err", cause)
	for _, ch := range pending {
		ch <- wsReply{f: transportFailure(w.n, cause, true)}
	}
}

// closeIdle closes the connections no call waits on, and the others once
// their calls are done (Pool.Close).
func (w *wsNode) closeIdle() {
	w.mu.Lock()
	var idle []*wsConn
	for _, c := range w.conns {
		if len(c.pending) == 0 {
			idle = append(idle, c)
		} else {
			c.idleClose = true
		}
	}
	w.mu.Unlock()
	for _, c := range idle {
		_ = c.c.CloseNow() // its reader drops it
	}
}

// readWSMessage reads one message, up to limit bytes. A longer one is read
// to its end all the same, so that the connection stays usable, and over is
// set: raw then holds the message's first bytes and, after them, its last
// wsTailLen bytes (answerID finds the id there).
func readWSMessage(r io.Reader, limit int64) (raw []byte, over bool, err error) {
	buf := bytes.NewBuffer(make([]byte, 0, 4<<10))
	n, err := buf.ReadFrom(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, false, err
	}
	if n <= limit {
		return buf.Bytes(), false, nil
	}
	head := buf.Bytes()[:min(n, 4<<10)]
	tail := make([]byte, 0, 2*wsTailLen)
	tail = append(tail, buf.Bytes()[n-wsTailLen:]...)
	chunk := make([]byte, 32<<10)
	for {
		k, rerr := r.Read(chunk)
		if k > 0 {
			tail = append(tail, chunk[max(0, k-wsTailLen):k]...)
			if len(tail) > wsTailLen {
				tail = append(tail[:0], tail[len(tail)-wsTailLen:]...)
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, false, rerr
		}
	}
	out := append(append(append([]byte(nil), head...), '\n'), tail...)
	return out, true, nil
}

// answerID returns the id of the call an answer is for: the "id" member of
// a whole answer, or for an answer over the size cap (over: raw is its head,
// a newline, its tail) an id at the very start or the very end of it.
func answerID(raw []byte, over bool) (uint64, bool) {
	if over {
		head, tail, _ := bytes.Cut(raw, []byte{'\n'})
		if id, ok := topLevelID(head); ok {
			return id, true
		}
		return trailingID(tail)
	}
	return topLevelID(raw)
}

// topLevelID reads the "id" member of the JSON object raw (or of its
// beginning), walking its members in order up to the id.
func topLevelID(raw []byte) (uint64, bool) {
	it := jsonwire.Members(raw, 0, answerDepth)
	for it.Next() {
		if jsonwire.EqualString(it.Name(), "id") {
			// The call checks the rest of its answer (checkSingle).
			return parseID(it.Value())
		}
	}
	return 0, false
}

// trailingID reads an id written last in an object: the tail ends with
// "id":N} (N a number or a string of one).
func trailingID(tail []byte) (uint64, bool) {
	t := bytes.TrimRight(tail, " \t\r\n")
	if len(t) == 0 || t[len(t)-1] != '}' {
		return 0, false
	}
	t = bytes.TrimRight(t[:len(t)-1], " \t\r\n")
	at := bytes.LastIndex(t, []byte(`"id"`))
	if at < 0 {
		return 0, false
	}
	v := bytes.TrimLeft(t[at+4:], " \t\r\n")
	if len(v) == 0 || v[0] != ':' {
		return 0, false
	}
	return parseID(bytes.TrimSpace(v[1:]))
}

// parseID reads an id the pool sent: a number, or a string holding one,
// spelt as the pool spells it (no leading zero: idMatches).
func parseID(v []byte) (uint64, bool) {
	text := idText(v)
	if len(text) > 1 && text[0] == '0' {
		return 0, false
	}
	id, err := strconv.ParseUint(string(text), 10, 64)
	return id, err == nil
}
