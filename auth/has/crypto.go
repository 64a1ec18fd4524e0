package has

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/md5" //nolint:gosec // EVP_BytesToKey with MD5 is CryptoJS's passphrase format, which HAS peers use
	"crypto/rand"
	"encoding/base64"
	"errors"
)

// HAS payloads are encrypted as CryptoJS.AES.encrypt(text, passphrase)
// writes them (hive-auth-wrapper; the PKSAs decrypt with CryptoJS or
// its ports): base64 of "Salted__", an 8-byte random salt and the
// AES-256-CBC ciphertext (PKCS #7 padding), the key and IV derived from
// the passphrase and salt by OpenSSL's EVP_BytesToKey with MD5 and one
// round. The passphrase is the auth_key the app shares out of band.

const saltedPrefix = "Salted__"

// ErrDecrypt is a payload that does not decrypt with the key: another
// key, or not a CryptoJS payload at all.
var ErrDecrypt = errors.New("the payload does not decrypt with this key")

// Encrypt encrypts plain with passphrase in CryptoJS's format.
func Encrypt(plain []byte, passphrase string) (string, error) {
	salt := make([]byte, 8)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key, iv := bytesToKey([]byte(passphrase), salt)
	block, err := aes.NewCipher(key)
	if err != nil {
		return "", err
	}
	pad := aes.BlockSize - len(plain)%aes.BlockSize
	buf := append(bytes.Clone(plain), bytes.Repeat([]byte{byte(pad)}, pad)...)
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(buf, buf)
	out := append([]byte(saltedPrefix), salt...)
	return base64.StdEncoding.EncodeToString(append(out, buf...)), nil
}

// Decrypt decrypts a CryptoJS payload with passphrase. A wrong key shows
// as bad padding (ErrDecrypt); the caller still parses what it gets, as
// a wrong key passes the padding check now and then.
func Decrypt(payload, passphrase string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(payload)
	if err != nil || len(raw) < 16+aes.BlockSize || string(raw[:8]) != saltedPrefix || (len(raw)-16)%aes.BlockSize != 0 {
		return nil, ErrDecrypt
	}
	key, iv := bytesToKey([]byte(passphrase), raw[8:16])
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	buf := bytes.Clone(raw[16:])
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(buf, buf)
	pad := int(buf[len(buf)-1])
	if pad == 0 || pad > aes.BlockSize || !bytes.Equal(buf[len(buf)-pad:], bytes.Repeat([]byte{byte(pad)}, pad)) {
		return nil, ErrDecrypt
	}
	return buf[:len(buf)-pad], nil
}

// bytesToKey is EVP_BytesToKey(MD5, 1 round): a 32-byte key and a 16-byte
// IV from passphrase and salt.
func bytesToKey(pass, salt []byte) (key, iv []byte) {
	var out, prev []byte
	for len(out) < 48 {
		h := md5.New() //nolint:gosec // see the import
		h.Write(prev)
		h.Write(pass)
		h.Write(salt)
		prev = h.Sum(nil)
		out = append(out, prev...)
	}
	return out[:32], out[32:48]
}
