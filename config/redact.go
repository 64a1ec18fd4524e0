package config

import (
	"net/url"
	"strings"
)

// Node URLs may carry credentials: a user and password
// (http://user:pass@node), an API key in the query
// (https://node/?api_key=…) or a token as a path segment
// (https://provider/v1/3f9a…). RedactURL is the one way hivegate shows such
// a URL to anyone: the admin endpoints, `hivegate route`, config errors and
// logs. The URL itself is still used, unchanged, to call the node.

// Redaction placeholders: what RedactURL shows instead of a secret.
const (
	// RedactedUserinfo replaces a URL's user and password.
	RedactedUserinfo = "xxxxx"
	// Redacted replaces every query value and every path segment that
	// looks like a token.
	Redacted = "REDACTED"
	// unparseableURL is shown for a URL that does not parse and holds
	// characters that may start a secret ('@', '?', '#').
	unparseableURL = "(unparseable URL, not shown: it may hold a secret)"
	// minTokenSegment is the shortest path segment taken for a token.
	minTokenSegment = 16
)

// RedactURL returns raw fit to be shown: the user information replaced by
// RedactedUserinfo (user and password both: a user name alone is often an
// API key), every query value by Redacted (the names stay, so the operator
// sees which parameters are set; a part without "=" goes whole), the
// fragment dropped, and each path
// segment that looks like a token — 16 or more letters, digits, '-' or '_',
// with at least one letter and one digit — replaced by Redacted. A string
// that does not parse as a URL is shown only when it holds none of '@', '?'
// and '#'.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if strings.ContainsAny(raw, "@?#") {
			return unparseableURL
		}
		return raw
	}
	out := *u
	if out.User != nil {
		out.User = url.User(RedactedUserinfo)
	}
	if out.RawQuery != "" {
		// Each name=value keeps its name; a part without "=" may be a
		// bare key, so it goes whole.
		parts := strings.Split(out.RawQuery, "&")
		for i, p := range parts {
			if name, _, ok := strings.Cut(p, "="); ok {
				parts[i] = name + "=" + Redacted
			} else if p != "" {
				parts[i] = Redacted
			}
		}
		out.RawQuery = strings.Join(parts, "&")
	}
	out.ForceQuery = false
	out.Fragment, out.RawFragment = "", ""
	if out.Opaque != "" {
		// scheme:opaque (no "//"): nothing to tell apart; hide all of it.
		out.Opaque = Redacted
	}
	if strings.ContainsFunc(out.Path, isDigit) {
		segs := strings.Split(out.Path, "/")
		changed := false
		for i, s := range segs {
			if looksLikeToken(s) {
				segs[i], changed = Redacted, true
			}
		}
		if changed {
			out.Path, out.RawPath = strings.Join(segs, "/"), ""
		}
	}
	return out.String()
}

// RedactURLs applies RedactURL to every URL of a list, into a new list.
func RedactURLs(raw []string) []string {
	if raw == nil {
		return nil
	}
	out := make([]string, len(raw))
	for i, u := range raw {
		out[i] = RedactURL(u)
	}
	return out
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// looksLikeToken reports a path segment that is likely an API key: long,
// of token characters only, mixing letters and digits (words such as
// "hafah-api" or "v1" are not).
func looksLikeToken(s string) bool {
	if len(s) < minTokenSegment {
		return false
	}
	var letter, digit bool
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letter = true
		case c == '-' || c == '_':
		default:
			return false
		}
	}
	return letter && digit
}

// looksLikePrivateKey reports a value that is a private key rather than a
// file path or an environment variable's name: a WIF key (51 or 52 base58
// characters starting with 5, K or L), a PEM block, or 64 hex digits (a raw
// secp256k1 or Ed25519 key). Messages about such a value never repeat it.
func looksLikePrivateKey(s string) bool {
	s = strings.TrimSpace(s)
	if strings.Contains(s, "-----BEGIN") || strings.Contains(s, "PRIVATE KEY") {
		return true
	}
	if (len(s) == 51 || len(s) == 52) && strings.IndexByte("5KL", s[0]) >= 0 && isBase58(s) {
		return true
	}
	if len(s) == 64 {
		for i := 0; i < len(s); i++ {
			if !strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i])) {
				return false
			}
		}
		return true
	}
	return false
}

// isBase58 reports whether s holds only Bitcoin base58 characters.
func isBase58(s string) bool {
	const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(alphabet, s[i]) < 0 {
			return false
		}
	}
	return true
}
