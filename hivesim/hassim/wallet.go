package hassim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hivegate/hivegate/auth/has"
	"github.com/hivegate/hivegate/hivetx"
)

// Mode is how a Wallet answers an authentication request.
type Mode int

// The wallet's answers.
const (
	// Approve signs the challenge with the account's key of the requested
	// type and answers auth_ack.
	Approve Mode = iota
	// Refuse answers auth_nack (the user rejected the request).
	Refuse
	// WrongEncryption answers an auth_ack encrypted with another key than
	// the link's auth_key.
	WrongEncryption
)

// Wallet is a simulated PKSA: given a has://auth_req/ link (as a user
// scans its QR code), it connects to the link's relay, gets the relay's
// key (key_req) and registers the link's account (register_req), waits
// for the auth_req with the link's uuid, decrypts it with the link's
// key, and answers as Mode says. Keys gives the private key of an
// account's role (posting, active, memo); SignWith, when set, signs
// challenges instead (a key the account does not have, or one of a
// multisig authority's keys).
type Wallet struct {
	Keys     func(account, role string) *hivetx.PrivateKey
	Mode     Mode
	SignWith *hivetx.PrivateKey
	Logger   *slog.Logger
	// ServeChallenges keeps the connection after the auth_ack and
	// answers the session's challenge_req (signing as for auth_req) until
	// ctx ends or the relay closes.
	ServeChallenges bool
}

// Result is what a Scan did: the request the wallet saw, and the session
// token it answered.
type Result struct {
	App   has.App
	Token string
}

// Scan runs one authentication request from link; ctx bounds it.
func (w *Wallet) Scan(ctx context.Context, link string) (Result, error) {
	p, err := has.ParseURI(link)
	if err != nil {
		return Result{}, err
	}
	c, err := has.Dial(ctx, p.Host)
	if err != nil {
		return Result{}, err
	}
	defer c.Close()
	if err := c.Send(ctx, has.Message{Cmd: has.CmdKeyReq}); err != nil {
		return Result{}, err
	}
	pok := fmt.Sprint(time.Now().Unix()) // a real wallet encrypts it for the relay; the simulated relay does not check it
	if err := c.Send(ctx, has.Message{Cmd: has.CmdRegisterReq, App: "hivegate wallet simulator", Accounts: []has.RegisterAccount{{Name: p.Account, PoK: pok}}}); err != nil {
		return Result{}, err
	}
	for {
		m, err := c.Recv(ctx)
		if err != nil {
			return Result{}, fmt.Errorf("waiting for the request: %w", err)
		}
		if m.Cmd == has.CmdError {
			return Result{}, &has.ErrRelay{Text: m.Error}
		}
		if m.Cmd != has.CmdAuthReq || m.UUID != p.UUID { // another request: not the one scanned
			continue
		}
		res, err := w.answerAuth(ctx, c, p, m)
		if err != nil || !w.ServeChallenges {
			return res, err
		}
		if err := w.serveChallenges(ctx, c, p); ctx.Err() == nil { // the caller ending the session is no error
			return res, err
		}
		return res, nil
	}
}

func (w *Wallet) answerAuth(ctx context.Context, c *has.Conn, p has.Payload, m has.Message) (Result, error) {
	var data has.AuthReqData
	if err := has.Open(m.Data, p.Key, &data); err != nil {
		return Result{}, fmt.Errorf("decrypting the auth_req: %w", err)
	}
	res := Result{App: data.App}
	switch w.Mode {
	case Refuse:
		enc, err := has.Encrypt([]byte(m.UUID), p.Key)
		if err != nil {
			return res, err
		}
		return res, c.Send(ctx, has.Message{Cmd: has.CmdAuthNack, UUID: m.UUID, Data: enc})
	case Approve, WrongEncryption:
	default:
		return res, errors.New("hassim: unknown wallet mode")
	}
	ack := has.AuthAckData{Token: uuid4(), Expire: time.Now().Add(24 * time.Hour).UnixMilli()}
	if data.Challenge != nil {
		signed, err := w.sign(p.Account, *data.Challenge)
		if err != nil {
			return res, err
		}
		ack.Challenge = &signed
	}
	key := p.Key
	if w.Mode == WrongEncryption {
		key = "not-" + p.Key
	}
	enc, err := has.Seal(ack, key)
	if err != nil {
		return res, err
	}
	res.Token = ack.Token
	return res, c.Send(ctx, has.Message{Cmd: has.CmdAuthAck, UUID: m.UUID, Data: enc})
}

// sign signs sha256 of a challenge as Keychain's signBuffer does.
func (w *Wallet) sign(account string, ch has.ChallengeData) (has.ChallengeAckData, error) {
	key := w.SignWith
	if key == nil && w.Keys != nil {
		key = w.Keys(account, ch.KeyType)
	}
	if key == nil {
		return has.ChallengeAckData{}, fmt.Errorf("hassim: the wallet has no %s key of @%s", ch.KeyType, account)
	}
	sig := key.SignDigest(hivetx.MessageDigest(ch.Challenge))
	return has.ChallengeAckData{PubKey: key.PublicKey().String(), Challenge: sig.String()}, nil
}

func (w *Wallet) serveChallenges(ctx context.Context, c *has.Conn, p has.Payload) error {
	for {
		m, err := c.Recv(ctx)
		if err != nil {
			return err
		}
		if m.Cmd != has.CmdChallengeReq || m.Account != p.Account {
			continue
		}
		var ch has.ChallengeData
		if err := has.Open(m.Data, p.Key, &ch); err != nil {
			continue // not this session's key
		}
		signed, err := w.sign(p.Account, ch)
		if err != nil {
			return err
		}
		enc, err := has.Seal(signed, p.Key)
		if err != nil {
			return err
		}
		if err := c.Send(ctx, has.Message{Cmd: has.CmdChallengeAck, UUID: m.UUID, Data: enc}); err != nil {
			return err
		}
	}
}
