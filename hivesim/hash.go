package hivesim

// splitmix64 is a fast, well-mixing 64-bit hash step; it derives every synthetic
// identifier (block ids, transaction ids, keys, signatures) from the seed.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// hashString is FNV-1a over s.
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// appendHex appends n lowercase hex digits derived from seed.
func appendHex(b []byte, n int, seed uint64) []byte {
	state, x := seed, uint64(0)
	for i := 0; i < n; i++ {
		if i%16 == 0 {
			state = splitmix64(state + uint64(i))
			x = state
		}
		b = append(b, "0123456789abcdef"[x&0xf])
		x >>= 4
	}
	return b
}

// hexHash returns n hex digits derived from seed.
func hexHash(n int, seed uint64) string { return string(appendHex(make([]byte, 0, n), n, seed)) }

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// publicKey returns a synthetic "STM…" public key string (53 characters like real ones).
func publicKey(seed uint64) string {
	b := make([]byte, 0, 53)
	b = append(b, "STM"...)
	state, x := seed, uint64(0)
	for i := 0; i < 50; i++ {
		if i%8 == 0 {
			state = splitmix64(state + uint64(i))
			x = state
		}
		b = append(b, base58Alphabet[x%58])
		x /= 58
	}
	return string(b)
}
