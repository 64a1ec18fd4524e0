package router

import (
	"encoding/json"
	"fmt"
	"strings"
)

// configKey is a parsed config method key: dotted segments and, when the key
// ends in .params=<list>, the params as a parsed JSON value.
type configKey struct {
	segs      []string
	params    any // parsed params value; nil when absent
	hasParams bool
}

// parseConfigKey parses "ns", "ns.api", "ns.api.method" and
// "ns.api.method.params=<list>", where <list> is JSON or the legacy
// Python-style spelling with single quotes (params=['/trending']).
func parseConfigKey(key string) (configKey, error) {
	var ck configKey
	path := key
	if i := strings.Index(key, ".params="); i >= 0 {
		path = key[:i]
		lit := key[i+len(".params="):]
		v, err := parseParamsLiteral(lit)
		if err != nil {
			return ck, fmt.Errorf("bad params literal %q: %v", lit, err)
		}
		ck.params, ck.hasParams = v, true
	}
	ck.segs = strings.Split(path, ".")
	for _, s := range ck.segs {
		if s == "" {
			return ck, fmt.Errorf("empty segment in key %q", key)
		}
		if strings.ContainsAny(s, " \t=") {
			return ck, fmt.Errorf("bad segment %q in key %q", s, key)
		}
	}
	if len(ck.segs) > 3 {
		return ck, fmt.Errorf("key %q has %d segments; at most namespace.api.method", key, len(ck.segs))
	}
	if ck.hasParams && len(ck.segs) < 2 {
		return ck, fmt.Errorf("key %q: params= needs a method", key)
	}
	return ck, nil
}

// parseParamsLiteral parses a params literal as JSON, or, failing that, as a
// Python literal (single-quoted strings, True/False/None), which is how jussi
// configs spell them.
func parseParamsLiteral(lit string) (any, error) {
	var v any
	if err := json.Unmarshal([]byte(lit), &v); err == nil {
		return v, nil
	}
	js, err := pythonToJSON(lit)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		return nil, err
	}
	return v, nil
}

// pythonToJSON rewrites a Python literal into JSON: 'x' → "x", True → true,
// False → false, None → null.
func pythonToJSON(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			quote := c
			b.WriteByte('"')
			i++
			for ; i < len(s) && s[i] != quote; i++ {
				switch {
				case s[i] == '\\' && i+1 < len(s):
					i++
					if s[i] == '\'' {
						b.WriteByte('\'')
					} else {
						b.WriteByte('\\')
						b.WriteByte(s[i])
					}
				case s[i] == '"':
					b.WriteString(`\"`)
				default:
					b.WriteByte(s[i])
				}
			}
			if i >= len(s) {
				return "", fmt.Errorf("unterminated string")
			}
			b.WriteByte('"')
		case strings.HasPrefix(s[i:], "True"):
			b.WriteString("true")
			i += 3
		case strings.HasPrefix(s[i:], "False"):
			b.WriteString("false")
			i += 4
		case strings.HasPrefix(s[i:], "None"):
			b.WriteString("null")
			i += 3
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// paramsEqual compares request params bytes with a config params value as
// JSON values, never as text.
func paramsEqual(raw json.RawMessage, want any) bool {
	if raw == nil {
		return false
	}
	var got any
	if err := json.Unmarshal(raw, &got); err != nil {
		return false
	}
	return jsonEqual(got, want)
}

func jsonEqual(a, b any) bool {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for k, x := range av {
			y, ok := bv[k]
			if !ok || !jsonEqual(x, y) {
				return false
			}
		}
		return true
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for i := range av {
			if !jsonEqual(av[i], bv[i]) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}
