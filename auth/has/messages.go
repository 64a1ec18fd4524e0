package has

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
)

// The commands of the protocol (hive-auth-wrapper's CMD, and the wallet's
// key and register commands).
const (
	CmdConnected     = "connected"
	CmdAuthReq       = "auth_req"
	CmdAuthWait      = "auth_wait"
	CmdAuthAck       = "auth_ack"
	CmdAuthNack      = "auth_nack"
	CmdAuthErr       = "auth_err"
	CmdChallengeReq  = "challenge_req"
	CmdChallengeWait = "challenge_wait"
	CmdChallengeAck  = "challenge_ack"
	CmdChallengeNack = "challenge_nack"
	CmdChallengeErr  = "challenge_err"
	CmdAttachReq     = "attach_req"
	CmdAttachAck     = "attach_ack"
	CmdAttachNack    = "attach_nack"
	CmdKeyReq        = "key_req"
	CmdKeyAck        = "key_ack"
	CmdRegisterReq   = "register_req"
	CmdRegisterAck   = "register_ack"
	CmdError         = "error"
)

// Protocol is the HAS protocol version this package speaks (the relay's
// "connected" message names its own; hive-auth-wrapper accepts 0.8 and 1).
const Protocol = 1

// Message is any message on the wire: the fields of every command, each
// omitted when empty. Data is an encrypted payload (base64); Expire is a
// UNIX time in milliseconds, as hive-auth-wrapper compares it with
// Date.now().
type Message struct {
	Cmd      string            `json:"cmd"`
	Account  string            `json:"account,omitempty"`
	UUID     string            `json:"uuid,omitempty"`
	Data     string            `json:"data,omitempty"`
	Token    string            `json:"token,omitempty"`
	Expire   int64             `json:"expire,omitempty"`
	Error    string            `json:"error,omitempty"`
	AuthKey  string            `json:"auth_key,omitempty"`
	Key      string            `json:"key,omitempty"`
	App      string            `json:"app,omitempty"`
	Accounts []RegisterAccount `json:"accounts,omitempty"`
	// connected
	Server   string  `json:"server,omitempty"`
	SocketID string  `json:"socketid,omitempty"`
	Timeout  int     `json:"timeout,omitempty"` // seconds
	Version  float64 `json:"protocol,omitempty"`
}

// RegisterAccount is one account of a wallet's register_req: its name and
// proof of key (pok).
type RegisterAccount struct {
	Name string `json:"name"`
	PoK  string `json:"pok,omitempty"`
}

// App describes the app to the wallet (auth_req_data.app).
type App struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Icon        string `json:"icon,omitempty"`
}

// ChallengeData is a string for the wallet to sign with the account's key
// of KeyType (posting, active or memo): auth_req_data.challenge, or a
// challenge_req's payload.
type ChallengeData struct {
	KeyType   string `json:"key_type"`
	Challenge string `json:"challenge"`
}

// AuthReqData is the encrypted payload of an auth_req.
type AuthReqData struct {
	App       App            `json:"app"`
	Challenge *ChallengeData `json:"challenge,omitempty"`
	Token     string         `json:"token,omitempty"` // protocol 0 only
}

// ChallengeAckData is the wallet's answer to a challenge: the public key
// that signed and the signature (hex of 65 bytes, recovery byte first) of
// sha256 of the challenge.
type ChallengeAckData struct {
	PubKey    string `json:"pubkey"`
	Challenge string `json:"challenge"`
}

// AuthAckData is the encrypted payload of an auth_ack: the wallet's
// session token and its expiry (UNIX ms), and the signed challenge when
// the auth_req carried one.
type AuthAckData struct {
	Token     string            `json:"token,omitempty"`
	Expire    int64             `json:"expire,omitempty"`
	Challenge *ChallengeAckData `json:"challenge,omitempty"`
}

// Payload is what the app shares with the wallet out of band
// (auth_payload): the account, the request's uuid from auth_wait, the
// auth_key and the relay's URL.
type Payload struct {
	Account string `json:"account"`
	UUID    string `json:"uuid"`
	Key     string `json:"key"`
	Host    string `json:"host"`
}

// URIPrefix starts a HiveAuth deep link.
const URIPrefix = "has://auth_req/"

// URI is the deep link of p (and the text of its QR code):
// has://auth_req/ and the base64 of p's JSON.
func (p Payload) URI() string {
	b, _ := json.Marshal(p) // strings only
	return URIPrefix + base64.StdEncoding.EncodeToString(b)
}

// ParseURI reads a has://auth_req/ deep link.
func ParseURI(uri string) (Payload, error) {
	enc, ok := strings.CutPrefix(uri, URIPrefix)
	if !ok {
		return Payload{}, errors.New("not a has://auth_req/ link")
	}
	raw, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		if raw, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(enc, "=")); err != nil {
			return Payload{}, errors.New("the link's payload is not base64")
		}
	}
	var p Payload
	if err := json.Unmarshal(raw, &p); err != nil || p.Account == "" || p.UUID == "" || p.Key == "" || p.Host == "" {
		return Payload{}, errors.New("the link's payload is not an auth_payload")
	}
	return p, nil
}

// Seal encrypts v's JSON with key (an auth_req_data, auth_ack_data or
// challenge payload).
func Seal(v any, key string) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return Encrypt(b, key)
}

// Open decrypts a payload with key into v.
func Open(payload, key string, v any) error {
	b, err := Decrypt(payload, key)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return ErrDecrypt
	}
	return nil
}
