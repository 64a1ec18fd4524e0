package router

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hivegate/hivegate/jsonwire"
)

// configKey is a parsed config method key: dotted segments and, when the key
// ends in .params=<value>, the value in match form (see jsonwire.AppendMatchForm).
type configKey struct {
	segs      []string
	params    []byte // match form of the params value; nil when absent
	hasParams bool
}

// parseConfigKey parses "ns", "ns.api", "ns.api.method" and
// "ns.api.method.params=<value>" (two-part methods like bridge.get_discussion
// take params= too), where <value> is JSON or the legacy Python spelling with
// single quotes and True/False/None (params=['/trending']).
func parseConfigKey(key string) (configKey, error) {
	var ck configKey
	path := key
	if i := strings.Index(key, ".params="); i >= 0 {
		path = key[:i]
		lit := key[i+len(".params="):]
		v, err := parseParamsLiteral(lit)
		if err != nil {
			return ck, fmt.Errorf("bad params value %q: %v", lit, err)
		}
		ck.params, ck.hasParams = v, true
	}
	ck.segs = strings.Split(path, ".")
	for _, s := range ck.segs {
		if s == "" {
			return ck, fmt.Errorf("empty segment in key %q", key)
		}
		if !validName(s) {
			return ck, fmt.Errorf("bad segment %q in key %q: want printable ASCII without spaces or '='", s, key)
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

// ConfigKeyParams returns the params of a config key that ends in
// .params=<value> as JSON, jussi's Python spelling (params=['/trending'])
// converted, and whether the key has such a value that parses.
func ConfigKeyParams(key string) (json.RawMessage, bool) {
	i := strings.Index(key, ".params=")
	if i < 0 {
		return nil, false
	}
	lit := key[i+len(".params="):]
	if json.Valid([]byte(lit)) {
		return json.RawMessage(lit), true
	}
	js, err := pythonToJSON(lit)
	if err != nil || !json.Valid([]byte(js)) {
		return nil, false
	}
	return json.RawMessage(js), true
}

// parseParamsLiteral parses a params value as JSON, or, failing that, as a
// Python literal (single-quoted strings, True/False/None), which is how jussi
// configs spell them, and returns its match form.
func parseParamsLiteral(lit string) ([]byte, error) {
	if v, err := jsonwire.AppendMatchForm(nil, []byte(lit)); err == nil {
		return v, nil
	}
	js, err := pythonToJSON(lit)
	if err != nil {
		return nil, err
	}
	return jsonwire.AppendMatchForm(nil, []byte(js))
}

// pythonToJSON rewrites a Python literal into JSON: 'x' → "x", True → true,
// False → false, None → null. Inside strings, \' becomes ' and a bare "
// is escaped; other backslash escapes are kept as JSON reads them.
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
				return "", errors.New("unterminated string")
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

// validName reports whether s can be one segment of a method or key: printable
// ASCII without '.', '=' or spaces. Excluding '=' keeps a method name from
// spelling a params= segment, so two different calls can never share a key.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '.' || c == '=' {
			return false
		}
	}
	return true
}
