package router_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/jsonwire"
	"github.com/hivegate/hivegate/router"
)

// FuzzParseMethod feeds arbitrary methods and params to Parse and Resolve.
// Neither may panic; a parsed call's key must hold the canonical form of its
// params, which canonicalises to itself and means the same JSON value; the
// bytes forwarded upstream must be the client's; and any valid JSON (within
// the nesting limit) must be accepted as params.
func FuzzParseMethod(f *testing.F) {
	f.Add("condenser_api.get_block", []byte(`[1]`))
	f.Add("call", []byte(`["database_api","get_block",[1]]`))
	f.Add("bridge.get_ranked_posts", []byte(`{"tag":"","sort":"trending","observer":null}`))
	r := newRouter(f, allNamespaces+`ttls:
  hived.database_api.get_state.params=['/trending']: 30
  appbase.condenser_api.get_block.params=[1.0]: 3
  "bridge.get_ranked_posts.params={'sort': 'trending', 'tag': '', 'observer': None}": 30
translate_to_appbase: [steemd]
`)
	f.Fuzz(func(t *testing.T, method string, params []byte) {
		var p json.RawMessage
		if len(params) > 0 {
			p = params
		}
		c, err := r.Parse(method, p)
		if err != nil {
			if !errors.Is(err, router.ErrInvalidMethod) {
				t.Fatalf("Parse error %v does not wrap ErrInvalidMethod", err)
			}
		} else {
			checkCall(t, r, method, p, c)
		}
		checkParseKey(t, r, method, p, c, err)
		valid := json.Valid(params) && depth(params) <= jsonwire.MaxDepth
		c, err = r.Parse("condenser_api.get_block", p)
		switch {
		case p == nil:
			if err != nil || c.Key != "appbase.condenser_api.get_block" {
				t.Fatalf("no params: %v, %v", c, err)
			}
		case valid && err != nil:
			t.Fatalf("valid JSON params %q refused: %v", params, err)
		case !valid && json.Valid(params):
			// Deeper than the canonicaliser's limit: either answer is fine.
		case !valid && err == nil:
			t.Fatalf("invalid JSON params %q accepted as %s", params, c.Key)
		}
	})
}

// checkParseKey checks that ParseKey, into a reused Call and after a key
// already in its buffer, agrees with Parse's c and err.
func checkParseKey(t *testing.T, r *router.Router, method string, p json.RawMessage, c *router.Call, err error) {
	t.Helper()
	reused := &router.Call{Namespace: "stale", Key: "stale", Params: json.RawMessage(`[0]`)}
	buf := []byte("previous key")
	got, kerr := r.ParseKey(reused, buf, method, p)
	if (kerr != nil) != (err != nil) || (err != nil && kerr.Error() != err.Error()) {
		t.Fatalf("ParseKey(%q, %q) error %v, Parse error %v", method, p, kerr, err)
	}
	if err != nil {
		return
	}
	if string(got[:len(buf)]) != "previous key" || string(got[len(buf):]) != c.Key {
		t.Fatalf("ParseKey(%q, %q) appended %q, Parse's key is %q", method, p, got[len(buf):], c.Key)
	}
	reused.Key = c.Key
	if !reflect.DeepEqual(reused, c) {
		t.Fatalf("ParseKey(%q, %q) = %+v, Parse = %+v", method, p, reused, c)
	}
}

func checkCall(t *testing.T, r *router.Router, method string, p json.RawMessage, c *router.Call) {
	t.Helper()
	path := c.Namespace + "." + c.APIMethod()
	if c.Params == nil {
		if c.Key != path {
			t.Fatalf("key %q, want %q (no params)", c.Key, path)
		}
	} else {
		canon, ok := strings.CutPrefix(c.Key, path+".params=")
		if !ok {
			t.Fatalf("key %q does not start with %s.params=", c.Key, path)
		}
		again, err := jsonwire.AppendCanonical(nil, []byte(canon))
		if err != nil || string(again) != canon {
			t.Fatalf("canonical params %s are not canonical: %s, %v", canon, again, err)
		}
		a, err := decode([]byte(canon))
		if err != nil {
			t.Fatalf("canonical params %s are not JSON: %v", canon, err)
		}
		b, err := decode(c.Params)
		if err != nil {
			t.Fatalf("params %s accepted but not JSON: %v", c.Params, err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("canonical params %s mean something else than %s", canon, c.Params)
		}
	}
	switch {
	case c.UpstreamMethod == "call" || c.UpstreamMethod == method || c.UpstreamMethod == method[strings.IndexByte(method, '.')+1:]:
		if !bytes.Equal(c.UpstreamParams, p) {
			t.Fatalf("upstream params %q, client sent %q", c.UpstreamParams, p)
		}
	default: // translate_to_appbase forwards the inner params
		if c.UpstreamMethod != "condenser_api."+c.Method || !bytes.Contains(p, c.UpstreamParams) {
			t.Fatalf("upstream %s %q from %s %q", c.UpstreamMethod, c.UpstreamParams, method, p)
		}
	}
	rt, err := r.Resolve(c)
	switch c.Namespace {
	case "appbase", "hived", "steemd", "bridge", "hive":
		if err != nil || rt.Backend != "node" {
			t.Fatalf("Resolve(%s) = %+v, %v", c.Key, rt, err)
		}
	default:
		if !errors.Is(err, router.ErrNoRoute) {
			t.Fatalf("Resolve(%s) error %v, want ErrNoRoute", c.Key, err)
		}
	}
}

// decode reads JSON keeping numbers as text (canonical keys keep number
// spellings, and 1e400 is no float64).
func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// depth returns the deepest nesting of lists and objects in valid JSON.
func depth(data []byte) int {
	d, deepest, inString := 0, 0, false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			d++
			deepest = max(deepest, d)
		case c == ']' || c == '}':
			d--
		}
	}
	return deepest
}
