// Package hassim simulates the HiveAuth infrastructure for tests and
// `hivegate demo`: a HAS relay (the WebSocket server apps and wallets
// meet at, as wss://hive-auth.arcange.eu runs it) and a wallet (a PKSA,
// such as Hive Keychain mobile) holding simulated accounts' keys. Both
// speak the messages of package has; neither is for production.
package hassim

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/hivegate/hivegate/auth/has"
)

// Relay is a HAS relay. Apps send auth_req and challenge_req; the relay
// answers auth_wait or challenge_wait with a uuid and an expiry and hands
// the request to the wallets registered for its account (or keeps it
// until one registers, until it expires); a wallet's ack, nack or err
// goes back to the app's connection (attach_req moves a request to a new
// one). Wallets get a server key with key_req and register accounts with
// register_req; the simulated relay does not check the proof of key
// (pok) a real one checks against the chain.
type Relay struct {
	// Timeout is how long a request waits for a wallet (default 60 s, as
	// the public relay's).
	Timeout time.Duration
	Logger  *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time

	mu      sync.Mutex
	wallets map[string]map[*peer]bool // account → registered wallets
	pending map[string]*request       // uuid → request
	conns   map[*peer]bool
	closed  bool
	serverK string
}

type peer struct {
	c  *has.Conn
	mu sync.Mutex // serializes writes
}

func (p *peer) send(m has.Message) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = p.c.Send(ctx, m)
}

type request struct {
	msg    has.Message // as the wallet gets it
	app    *peer
	kind   string // "auth" or "challenge"
	sentTo map[*peer]bool
}

func (r *Relay) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Relay) timeout() time.Duration { return cmp.Or(max(r.Timeout, 0), time.Minute) }

func (r *Relay) log() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// uuid4 is a random RFC 4122 version 4 UUID, as the relay's ids are.
func uuid4() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// ServeHTTP accepts a WebSocket and serves it until it closes.
func (r *Relay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	ws, err := websocket.Accept(w, req, &websocket.AcceptOptions{InsecureSkipVerify: true}) // apps and wallets of any origin, as the public relay
	if err != nil {
		return
	}
	p := &peer{c: has.Accepted(ws)}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		p.c.CloseNow()
		return
	}
	if r.conns == nil {
		r.conns, r.wallets, r.pending, r.serverK = map[*peer]bool{}, map[string]map[*peer]bool{}, map[string]*request{}, randomHex(16)
	}
	r.conns[p] = true
	r.mu.Unlock()
	defer r.drop(p)
	p.send(has.Message{Cmd: has.CmdConnected, Server: "hassim", SocketID: uuid4(), Timeout: int(r.timeout() / time.Second), Version: has.Protocol})
	for {
		m, err := p.c.Recv(req.Context())
		if err != nil {
			return
		}
		r.handle(p, m)
	}
}

// Close closes every connection; the relay serves no more.
func (r *Relay) Close() {
	r.mu.Lock()
	r.closed = true
	conns := make([]*peer, 0, len(r.conns))
	for p := range r.conns {
		conns = append(conns, p)
	}
	r.mu.Unlock()
	for _, p := range conns {
		p.c.CloseNow()
	}
}

func (r *Relay) drop(p *peer) {
	r.mu.Lock()
	delete(r.conns, p)
	for acct, ws := range r.wallets {
		delete(ws, p)
		if len(ws) == 0 {
			delete(r.wallets, acct)
		}
	}
	r.mu.Unlock()
	p.c.CloseNow()
}

func (r *Relay) handle(p *peer, m has.Message) {
	switch m.Cmd {
	case has.CmdAuthReq, has.CmdChallengeReq:
		r.request(p, m)
	case has.CmdAuthAck, has.CmdAuthNack, has.CmdAuthErr, has.CmdChallengeAck, has.CmdChallengeNack, has.CmdChallengeErr:
		r.answer(m)
	case has.CmdAttachReq:
		r.mu.Lock()
		req, ok := r.pending[m.UUID]
		if ok {
			req.app = p
		}
		r.mu.Unlock()
		if ok {
			p.send(has.Message{Cmd: has.CmdAttachAck, UUID: m.UUID})
		} else {
			p.send(has.Message{Cmd: has.CmdAttachNack, UUID: m.UUID})
		}
	case has.CmdKeyReq:
		r.mu.Lock()
		k := r.serverK
		r.mu.Unlock()
		p.send(has.Message{Cmd: has.CmdKeyAck, Key: k})
	case has.CmdRegisterReq:
		r.register(p, m)
	default:
		p.send(has.Message{Cmd: has.CmdError, Error: "unknown command " + m.Cmd})
	}
}

func (r *Relay) request(app *peer, m has.Message) {
	if m.Account == "" || m.Data == "" {
		app.send(has.Message{Cmd: has.CmdError, Error: "missing account or data"})
		return
	}
	kind := strings.TrimSuffix(m.Cmd, "_req")
	id := uuid4()
	expire := r.now().Add(r.timeout()).UnixMilli()
	fwd := has.Message{Cmd: m.Cmd, Account: m.Account, Data: m.Data, Token: m.Token, UUID: id, Expire: expire, AuthKey: m.AuthKey}
	req := &request{msg: fwd, app: app, kind: kind, sentTo: map[*peer]bool{}}
	r.mu.Lock()
	r.expireLocked()
	r.pending[id] = req
	var to []*peer
	for w := range r.wallets[m.Account] {
		to = append(to, w)
		req.sentTo[w] = true
	}
	r.mu.Unlock()
	app.send(has.Message{Cmd: kind + "_wait", UUID: id, Expire: expire, Account: m.Account})
	r.log().Debug("hassim relay: request", "cmd", m.Cmd, "account", m.Account, "uuid", id, "wallets", len(to))
	for _, w := range to {
		w.send(fwd)
	}
}

// expireLocked forgets expired requests.
func (r *Relay) expireLocked() {
	now := r.now().UnixMilli()
	for id, req := range r.pending {
		if req.msg.Expire < now {
			delete(r.pending, id)
		}
	}
}

func (r *Relay) answer(m has.Message) {
	r.mu.Lock()
	req, ok := r.pending[m.UUID]
	if ok {
		delete(r.pending, m.UUID)
	}
	r.mu.Unlock()
	if !ok {
		return
	}
	req.app.send(has.Message{Cmd: m.Cmd, UUID: m.UUID, Data: m.Data, Error: m.Error})
}

func (r *Relay) register(w *peer, m has.Message) {
	var deliver []has.Message
	r.mu.Lock()
	r.expireLocked()
	for _, a := range m.Accounts {
		if r.wallets[a.Name] == nil {
			r.wallets[a.Name] = map[*peer]bool{}
		}
		r.wallets[a.Name][w] = true
		for _, req := range r.pending {
			if req.msg.Account == a.Name && !req.sentTo[w] {
				req.sentTo[w] = true
				deliver = append(deliver, req.msg)
			}
		}
	}
	r.mu.Unlock()
	for _, a := range m.Accounts {
		w.send(has.Message{Cmd: has.CmdRegisterAck, Account: a.Name})
	}
	for _, msg := range deliver {
		w.send(msg)
	}
}
