package hivetx

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/mr-tron/base58"
	"golang.org/x/crypto/ripemd160" //nolint:staticcheck // Hive's key checksum is RIPEMD-160; no other hash will do.
)

// KeyPrefix is the address prefix of Hive mainnet public keys.
const KeyPrefix = "STM"

// Roles of Hive keys, as wallets name them when deriving a key from a
// password (PrivateKeyFromLogin).
const (
	RoleOwner   = "owner"
	RoleActive  = "active"
	RolePosting = "posting"
	RoleMemo    = "memo"
)

// PublicKey is a compressed secp256k1 public key (33 bytes), the form Hive
// serializes. It is comparable, so it can key a map.
type PublicKey [33]byte

// ErrInvalidKey is returned for a key that cannot be parsed. Its message
// never repeats the key text: a mistyped private key must not reach a log.
var ErrInvalidKey = errors.New("invalid key")

// ParsePublicKey reads the text form "STM" + base58(key ‖ ripemd160(key)[:4]).
func ParsePublicKey(s string) (PublicKey, error) {
	var pk PublicKey
	rest, ok := strings.CutPrefix(s, KeyPrefix)
	if !ok {
		return pk, fmt.Errorf("%w: public key must start with %s", ErrInvalidKey, KeyPrefix)
	}
	raw, err := base58.Decode(rest)
	if err != nil || len(raw) != 37 {
		return pk, fmt.Errorf("%w: public key is not base58 of 37 bytes", ErrInvalidKey)
	}
	sum := ripemd(raw[:33])
	if !bytes.Equal(sum[:4], raw[33:]) {
		return pk, fmt.Errorf("%w: public key checksum mismatch", ErrInvalidKey)
	}
	if _, err := secp256k1.ParsePubKey(raw[:33]); err != nil {
		return pk, fmt.Errorf("%w: not a point on secp256k1", ErrInvalidKey)
	}
	copy(pk[:], raw[:33])
	return pk, nil
}

// String is the key's "STM…" text form.
func (k PublicKey) String() string {
	sum := ripemd(k[:])
	return KeyPrefix + base58.Encode(append(k[:], sum[:4]...))
}

// MarshalText implements encoding.TextMarshaler (the "STM…" form).
func (k PublicKey) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *PublicKey) UnmarshalText(b []byte) error {
	pk, err := ParsePublicKey(string(b))
	if err != nil {
		return err
	}
	*k = pk
	return nil
}

// PrivateKey is a secp256k1 private key. Its String method does not print
// the key: formatting a PrivateKey by mistake (a log line, an error) shows
// only its public key.
type PrivateKey struct {
	k *secp256k1.PrivateKey
}

// ParseWIF reads a private key in Wallet Import Format: base58 of
// 0x80 ‖ key ‖ sha256(sha256(0x80 ‖ key))[:4].
func ParseWIF(s string) (*PrivateKey, error) {
	raw, err := base58.Decode(strings.TrimSpace(s))
	if err != nil || len(raw) != 37 || raw[0] != 0x80 {
		return nil, fmt.Errorf("%w: not a WIF private key", ErrInvalidKey)
	}
	h1 := sha256.Sum256(raw[:33])
	h2 := sha256.Sum256(h1[:])
	if !bytes.Equal(h2[:4], raw[33:]) {
		return nil, fmt.Errorf("%w: WIF checksum mismatch", ErrInvalidKey)
	}
	return privateKeyFromBytes(raw[1:33])
}

// PrivateKeyFromLogin derives the key of one role of an account from a
// password as Hive wallets do (dhive's PrivateKey.fromLogin, hive-js'
// auth.toWif): sha256(account ‖ role ‖ password) is the secret.
func PrivateKeyFromLogin(account, password, role string) *PrivateKey {
	seed := sha256.Sum256([]byte(account + role + password))
	k, _ := privateKeyFromBytes(seed[:]) // a sha256 is a valid secret except with negligible probability
	return k
}

// PrivateKeyFromSeed derives a key from an arbitrary seed as
// sha256(seed) (dhive's PrivateKey.fromSeed).
func PrivateKeyFromSeed(seed string) *PrivateKey {
	s := sha256.Sum256([]byte(seed))
	k, _ := privateKeyFromBytes(s[:])
	return k
}

func privateKeyFromBytes(b []byte) (*PrivateKey, error) {
	var s secp256k1.ModNScalar
	if overflow := s.SetByteSlice(b); overflow || s.IsZero() {
		return nil, fmt.Errorf("%w: secret out of range", ErrInvalidKey)
	}
	return &PrivateKey{k: secp256k1.NewPrivateKey(&s)}, nil
}

// PublicKey returns the key's public half.
func (k *PrivateKey) PublicKey() PublicKey {
	var pk PublicKey
	copy(pk[:], k.k.PubKey().SerializeCompressed())
	return pk
}

// WIF returns the key in Wallet Import Format. Only tests and the demo's
// documented keys should ever need it.
func (k *PrivateKey) WIF() string {
	raw := append([]byte{0x80}, k.k.Serialize()...)
	h1 := sha256.Sum256(raw)
	h2 := sha256.Sum256(h1[:])
	return base58.Encode(append(raw, h2[:4]...))
}

// String names the key by its public key; it never prints the secret.
func (k *PrivateKey) String() string { return "private key of " + k.PublicKey().String() }

// GoString is String, so that %#v does not print the secret either.
func (k *PrivateKey) GoString() string { return k.String() }

func ripemd(b []byte) []byte {
	h := ripemd160.New()
	h.Write(b)
	return h.Sum(nil)
}
