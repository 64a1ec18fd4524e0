package hivetx

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
)

// Signature is a compact recoverable ECDSA signature as Hive writes it:
// one header byte (27 + 4 for a compressed key + the recovery id), then r
// and s, 32 bytes each.
type Signature [65]byte

// ErrInvalidSignature is returned for a signature that cannot be parsed or
// from which no public key can be recovered.
var ErrInvalidSignature = errors.New("invalid signature")

// ParseSignature reads a signature's hex form.
func ParseSignature(s string) (Signature, error) {
	var sig Signature
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(sig) {
		return sig, fmt.Errorf("%w: want 130 hex digits", ErrInvalidSignature)
	}
	copy(sig[:], b)
	return sig, nil
}

// String is the signature's hex form.
func (s Signature) String() string { return hex.EncodeToString(s[:]) }

// MarshalText implements encoding.TextMarshaler (hex).
func (s Signature) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Signature) UnmarshalText(b []byte) error {
	sig, err := ParseSignature(string(b))
	if err != nil {
		return err
	}
	*s = sig
	return nil
}

// IsCanonical reports whether hived accepts the signature: since hard
// fork 20 it asks for BIP 62's "low S" form (s at most half the curve
// order), which fc calls bip_0062. Every signature SignDigest makes is.
func (s Signature) IsCanonical() bool {
	var v secp256k1.ModNScalar
	if overflow := v.SetByteSlice(s[33:65]); overflow || v.IsZero() {
		return false
	}
	return !v.IsOverHalfOrder()
}

// IsFCCanonical reports whether the signature meets fc's older, stricter
// rule (fc_canonical, required before hard fork 20 and still checked by
// dhive): r and s, read as 32-byte big-endian numbers, have their top bit
// clear and no redundant leading zero byte.
func (s Signature) IsFCCanonical() bool {
	return s[1]&0x80 == 0 && !(s[1] == 0 && s[2]&0x80 == 0) &&
		s[33]&0x80 == 0 && !(s[33] == 0 && s[34]&0x80 == 0)
}

// Recover returns the public key that made the signature of digest.
func (s Signature) Recover(digest [32]byte) (PublicKey, error) {
	var pk PublicKey
	pub, compressed, err := ecdsa.RecoverCompact(s[:], digest[:])
	if err != nil || !compressed {
		return pk, ErrInvalidSignature
	}
	copy(pk[:], pub.SerializeCompressed())
	return pk, nil
}

// SignDigest signs a 32-byte digest with RFC 6979 deterministic nonces.
// The signature is canonical (low S, IsCanonical).
func (k *PrivateKey) SignDigest(digest [32]byte) Signature {
	var sig Signature
	copy(sig[:], ecdsa.SignCompact(k.k, digest[:], true))
	return sig
}

// MessageDigest is the digest Hive Keychain's requestSignBuffer and
// dhive's cryptoUtils.sha256 sign for a text message: sha256 of its UTF-8
// bytes.
func MessageDigest(message string) [32]byte { return sha256.Sum256([]byte(message)) }
