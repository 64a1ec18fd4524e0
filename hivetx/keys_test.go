package hivetx_test

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/hivetx"
)

// The Wallet Import Format example of the Bitcoin wiki: Hive's WIF is the
// same encoding.
const (
	wikiWIF    = "5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ"
	wikiPubHex = "02d0de0aaeaefad02b8bdc8a01a1b8b11c696bd3d66a2c5f10780d95b7df42645c"
)

func TestWIF(t *testing.T) {
	t.Parallel()
	k, err := hivetx.ParseWIF(wikiWIF)
	if err != nil {
		t.Fatal(err)
	}
	pub := k.PublicKey()
	if got := hex.EncodeToString(pub[:]); got != wikiPubHex {
		t.Errorf("public key %s, want %s", got, wikiPubHex)
	}
	if k.WIF() != wikiWIF {
		t.Errorf("WIF round trip: %s", k.WIF())
	}
	back, err := hivetx.ParsePublicKey(pub.String())
	if err != nil || back != pub {
		t.Errorf("public key text round trip: %v %v", back, err)
	}
}

func TestKeyErrorsNeverShowTheKey(t *testing.T) {
	t.Parallel()
	bad := []string{
		wikiWIF[:len(wikiWIF)-1] + "K",                        // checksum
		"5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd",                   // short
		"0HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ", // not base58
		"",
	}
	for _, s := range bad {
		_, err := hivetx.ParseWIF(s)
		if !errors.Is(err, hivetx.ErrInvalidKey) {
			t.Errorf("ParseWIF(%q): %v", s, err)
			continue
		}
		if s != "" && strings.Contains(err.Error(), s) {
			t.Errorf("the error repeats the key: %v", err)
		}
	}
	k, _ := hivetx.ParseWIF(wikiWIF)
	for _, f := range []string{"%v", "%s", "%+v", "%#v"} {
		if out := fmt.Sprintf(f, k); strings.Contains(out, wikiWIF) || strings.Contains(out, "0c28fca386c7a2") {
			t.Errorf("%s prints the secret: %s", f, out)
		}
	}
}

func TestParsePublicKeyRefusals(t *testing.T) {
	t.Parallel()
	good := hivetx.PrivateKeyFromLogin("alice", "pw", hivetx.RolePosting).PublicKey().String()
	for _, s := range []string{
		"TST" + good[3:],                   // another network's prefix
		good[:len(good)-1] + "x",           // checksum
		good[:20],                          // short
		"STM" + strings.Repeat("1", 50),    // base58 of zeros: no point
		"STM8m5UgaFAAYQRuaNejYdS8FVLVp9Ss", // short
	} {
		if _, err := hivetx.ParsePublicKey(s); !errors.Is(err, hivetx.ErrInvalidKey) {
			t.Errorf("ParsePublicKey(%q): %v", s, err)
		}
	}
}

func TestPrivateKeyFromLoginRoles(t *testing.T) {
	t.Parallel()
	seen := map[hivetx.PublicKey]string{}
	for _, role := range []string{hivetx.RoleOwner, hivetx.RoleActive, hivetx.RolePosting, hivetx.RoleMemo} {
		k := hivetx.PrivateKeyFromLogin("alice", "pw", role).PublicKey()
		if prev, dup := seen[k]; dup {
			t.Errorf("%s and %s give one key", prev, role)
		}
		seen[k] = role
		if again := hivetx.PrivateKeyFromLogin("alice", "pw", role).PublicKey(); again != k {
			t.Errorf("%s: not deterministic", role)
		}
	}
	if hivetx.PrivateKeyFromLogin("alice", "pw", "posting").PublicKey() == hivetx.PrivateKeyFromLogin("bob", "pw", "posting").PublicKey() {
		t.Error("the account name is not part of the seed")
	}
}

func TestSignatureRecoverAndCanonical(t *testing.T) {
	t.Parallel()
	k := hivetx.PrivateKeyFromLogin("alice", "pw", hivetx.RolePosting)
	d := hivetx.MessageDigest("hivegate login challenge")
	sig := k.SignDigest(d)
	if !sig.IsCanonical() {
		t.Error("SignDigest made a high-S signature")
	}
	if pk, err := sig.Recover(d); err != nil || pk != k.PublicKey() {
		t.Errorf("recovered %v (%v)", pk, err)
	}
	other := hivetx.MessageDigest("another message")
	if pk, err := sig.Recover(other); err == nil && pk == k.PublicKey() {
		t.Error("a signature of one message recovers the key for another")
	}
	parsed, err := hivetx.ParseSignature(sig.String())
	if err != nil || parsed != sig {
		t.Errorf("hex round trip: %v", err)
	}
	// A high-S twin of a valid signature: s' = n - s. hived refuses it.
	high := sig
	n, _ := hex.DecodeString("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
	borrow := 0
	for i := 31; i >= 0; i-- {
		v := int(n[i]) - int(sig[33+i]) - borrow
		borrow = 0
		if v < 0 {
			v += 256
			borrow = 1
		}
		high[33+i] = byte(v)
	}
	if high.IsCanonical() {
		t.Error("n - s is accepted as canonical")
	}
	for _, s := range []string{"", "00", strings.Repeat("zz", 65), sig.String()[2:]} {
		if _, err := hivetx.ParseSignature(s); !errors.Is(err, hivetx.ErrInvalidSignature) {
			t.Errorf("ParseSignature(%q): %v", s, err)
		}
	}
}
