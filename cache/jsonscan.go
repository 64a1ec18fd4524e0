package cache

import "bytes"

// This file holds a minimal JSON walker used by ReversibleTTL to look at the
// top levels of a result without decoding it: a block can be megabytes, and
// only one or two of its members matter. Strings and nested values are
// skipped as units, so text inside a string (a custom_json payload) or a
// member deeper down (witness_block_approve_operation's own block_id) is
// never mistaken for the block's block_id.

// isSpace reports whether c is JSON whitespace.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipString returns the index just after the string whose opening quote is
// at b[i].
func skipString(b []byte, i int) (int, bool) {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return 0, false
		}
		end := i + j
		// The quote is escaped when an odd number of backslashes precede it.
		k := end
		for k > i && b[k-1] == '\\' {
			k--
		}
		if (end-k)%2 == 0 {
			return end + 1, true
		}
		i = end + 1
	}
}

// skipValue returns the index just after the value starting at b[i] (which
// must not be whitespace). Containers are skipped by depth counting; literals
// and numbers run to the next delimiter. The walk is structural, not a full
// validation.
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{' || c == '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, ok := skipString(b, i)
				if !ok {
					return 0, false
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return 0, false
	case c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n':
		start := i
		for i < len(b) && !isSpace(b[i]) && b[i] != ',' && b[i] != ']' && b[i] != '}' {
			i++
		}
		return i, i > start
	default:
		return 0, false
	}
}

// eachMember calls fn with the raw key (without quotes, escapes untouched)
// and the raw value of every member of the object whose '{' is at b[i], and
// returns the index just after its '}'.
func eachMember(b []byte, i int, fn func(key, value []byte)) (int, bool) {
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, false
		}
		keyEnd, ok := skipString(b, i)
		if !ok {
			return 0, false
		}
		key := b[i+1 : keyEnd-1]
		i = skipSpace(b, keyEnd)
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		i = skipSpace(b, i+1)
		valEnd, ok := skipValue(b, i)
		if !ok {
			return 0, false
		}
		fn(key, b[i:valEnd])
		i = skipSpace(b, valEnd)
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// eachElement calls fn with every element of the array whose '[' is at b[i]
// and returns the index just after its ']'.
func eachElement(b []byte, i int, fn func(value []byte)) (int, bool) {
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		valEnd, ok := skipValue(b, i)
		if !ok {
			return 0, false
		}
		fn(b[i:valEnd])
		i = skipSpace(b, valEnd)
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// isEmptyContainer reports whether v is "null", "{}" or "[]" (with any
// whitespace inside).
func isEmptyContainer(v []byte) bool {
	v = bytes.TrimFunc(v, func(r rune) bool { return r < 0x80 && isSpace(byte(r)) })
	if string(v) == "null" {
		return true
	}
	if len(v) < 2 || (v[0] != '{' && v[0] != '[') {
		return false
	}
	return skipSpace(v, 1) == len(v)-1 && (v[len(v)-1] == '}' || v[len(v)-1] == ']')
}

// stringContents returns the bytes between the quotes of the JSON string v,
// or nil if v is not a string.
func stringContents(v []byte) []byte {
	if len(v) < 2 || v[0] != '"' {
		return nil
	}
	return v[1 : len(v)-1]
}
