package has

import (
	"context"
	"fmt"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
)

// maxMessage bounds a message read from a relay or a peer.
const maxMessage = 64 << 10

// Conn is one WebSocket connection to a HAS relay (github.com/coder/websocket).
type Conn struct {
	ws *websocket.Conn
	// Connected is the relay's greeting: its protocol version and its
	// request timeout in seconds.
	Connected Message
}

// Dial connects to the relay at url (ws:// or wss://) and reads its
// "connected" greeting. ctx bounds the dial and the greeting.
func Dial(ctx context.Context, url string) (*Conn, error) {
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting to the HiveAuth relay: %w", err)
	}
	ws.SetReadLimit(maxMessage)
	c := &Conn{ws: ws}
	m, err := c.Recv(ctx)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("reading the HiveAuth relay's greeting: %w", err)
	}
	if m.Cmd != CmdConnected {
		c.Close()
		return nil, fmt.Errorf("the HiveAuth relay greeted with %q, not %q", m.Cmd, CmdConnected)
	}
	c.Connected = m
	return c, nil
}

// Accepted wraps a connection a relay accepted (the server side).
func Accepted(ws *websocket.Conn) *Conn {
	ws.SetReadLimit(maxMessage)
	return &Conn{ws: ws}
}

// Send writes one message.
func (c *Conn) Send(ctx context.Context, m Message) error {
	return wsjson.Write(ctx, c.ws, m)
}

// Recv reads one message.
func (c *Conn) Recv(ctx context.Context) (Message, error) {
	var m Message
	err := wsjson.Read(ctx, c.ws, &m)
	return m, err
}

// Close closes the connection (a normal closure, without waiting long
// for the peer).
func (c *Conn) Close() {
	_ = c.ws.Close(websocket.StatusNormalClosure, "")
}

// CloseNow closes the connection at once.
func (c *Conn) CloseNow() { _ = c.ws.CloseNow() }

// ErrRelay is an error message of the relay (cmd "error").
type ErrRelay struct{ Text string }

func (e *ErrRelay) Error() string { return "the HiveAuth relay answered an error: " + e.Text }

// AuthReq sends an auth_req for account with data encrypted with key and
// returns the relay's auth_wait (its uuid and expiry).
func (c *Conn) AuthReq(ctx context.Context, account string, data AuthReqData, key string) (Message, error) {
	enc, err := Seal(data, key)
	if err != nil {
		return Message{}, err
	}
	if err := c.Send(ctx, Message{Cmd: CmdAuthReq, Account: account, Data: enc}); err != nil {
		return Message{}, err
	}
	return c.awaitWait(ctx, CmdAuthWait)
}

// ChallengeReq sends a challenge_req for account (token: the wallet's
// session token from auth_ack) and returns the relay's challenge_wait.
func (c *Conn) ChallengeReq(ctx context.Context, account, token string, data ChallengeData, key string) (Message, error) {
	enc, err := Seal(data, key)
	if err != nil {
		return Message{}, err
	}
	if err := c.Send(ctx, Message{Cmd: CmdChallengeReq, Account: account, Token: token, Data: enc}); err != nil {
		return Message{}, err
	}
	return c.awaitWait(ctx, CmdChallengeWait)
}

func (c *Conn) awaitWait(ctx context.Context, want string) (Message, error) {
	for {
		m, err := c.Recv(ctx)
		switch {
		case err != nil:
			return Message{}, err
		case m.Cmd == want && m.UUID != "":
			return m, nil
		case m.Cmd == CmdError:
			return Message{}, &ErrRelay{Text: m.Error}
		}
	}
}

// Await reads until the answer to the request uuid: cmd's ack, nack or
// err (cmd is "auth" or "challenge"). Other messages are skipped.
func (c *Conn) Await(ctx context.Context, cmd, uuid string) (Message, error) {
	for {
		m, err := c.Recv(ctx)
		if err != nil {
			return Message{}, err
		}
		switch m.Cmd {
		case cmd + "_ack", cmd + "_nack", cmd + "_err":
			if m.UUID == uuid {
				return m, nil
			}
		case CmdError:
			return Message{}, &ErrRelay{Text: m.Error}
		}
	}
}
