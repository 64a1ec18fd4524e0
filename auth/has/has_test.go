package has_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/hivegate/hivegate/auth/has"
)

// The passphrase and text of an OpenSSL-made payload: `openssl enc
// -aes-256-cbc -md md5 -k KEY -base64 -A`, which writes CryptoJS's format.
const (
	opensslKey     = "03f63469-5a35-47cb-a6b4-e8c4d3144cf9"
	opensslText    = `{"app":{"name":"hivegate"},"challenge":{"key_type":"posting","challenge":"hi"}}`
	opensslPayload = "U2FsdGVkX18+62MS+RLCnuwBkBulGTqL0SDRy9ipajJeeoe8Na+HbqQsIoI2JGNFg6Qh0Ao/WF9zGFyt2U0YX//FnOlWHlEAUpqOdguoCi9rlgUOy56zrnfBvT2o6VJY"
)

// TestDecryptOpenSSL decrypts a payload written by another
// implementation of the format (OpenSSL's enc, as CryptoJS.AES.encrypt
// with a passphrase writes it).
func TestDecryptOpenSSL(t *testing.T) {
	t.Parallel()
	got, err := has.Decrypt(opensslPayload, opensslKey)
	if err != nil || string(got) != opensslText {
		t.Fatalf("Decrypt: %q %v", got, err)
	}
	if _, err := has.Decrypt(opensslPayload, "another key"); !errors.Is(err, has.ErrDecrypt) {
		t.Errorf("another key: %v, want ErrDecrypt", err)
	}
}

// TestEncryptRoundTrip: Encrypt writes "Salted__" with a fresh salt each
// time, and Decrypt reads every length back (padding at block edges).
func TestEncryptRoundTrip(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 15, 16, 17, 31, 32, 100} {
		plain := bytes.Repeat([]byte{'x'}, n)
		a, err := has.Encrypt(plain, opensslKey)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := has.Encrypt(plain, opensslKey)
		if a == b || a[:10] != "U2FsdGVkX1" {
			t.Errorf("len %d: %s and %s: want distinct salted payloads", n, a, b)
		}
		if got, err := has.Decrypt(a, opensslKey); err != nil || !bytes.Equal(got, plain) {
			t.Errorf("len %d: %q %v", n, got, err)
		}
	}
	for _, bad := range []string{"", "not base64!", "U2FsdGVkX18=", "YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXo="} {
		if _, err := has.Decrypt(bad, opensslKey); !errors.Is(err, has.ErrDecrypt) {
			t.Errorf("%q: %v, want ErrDecrypt", bad, err)
		}
	}
}

// TestURI reads the example of docs.hiveauth.com's "Authentication
// payload" page, and writes links that read back.
func TestURI(t *testing.T) {
	t.Parallel()
	const doc = "has://auth_req/eyJhY2NvdW50IjoiYXJjYW5nZSIsInV1aWQiOiI5YjBlMmRjMy1mNTc0LTQ3NjYtYWJkZC1jNDI5ZGNlMTEyODQiLCJrZXkiOiIwM2Y2MzQ2OS01YTM1LTQ3Y2ItYTZiNC1lOGM0ZDMxNDRjZjkiLCJob3N0Ijoid3NzOi8vaGFzLmhpdmVhdXRoLmNvbSJ9"
	want := has.Payload{Account: "arcange", UUID: "9b0e2dc3-f574-4766-abdd-c429dce11284", Key: "03f63469-5a35-47cb-a6b4-e8c4d3144cf9", Host: "wss://has.hiveauth.com"}
	p, err := has.ParseURI(doc)
	if err != nil || p != want {
		t.Fatalf("ParseURI: %+v %v", p, err)
	}
	if back, err := has.ParseURI(want.URI()); err != nil || back != want {
		t.Errorf("round trip: %+v %v", back, err)
	}
	for _, bad := range []string{"https://x", "has://auth_req/%%%", "has://auth_req/e30="} {
		if _, err := has.ParseURI(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
