package transcode

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/internal/fixtures"

	"google.golang.org/protobuf/reflect/protoregistry"
)

// openAPIDoc is the part of hived's openapi.json the test reads: for every
// method, the example of its successful response.
type openAPIDoc struct {
	Paths map[string]struct {
		Post struct {
			Responses map[string]struct {
				Content map[string]struct {
					Example json.RawMessage `json:"example"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"post"`
	} `json:"paths"`
}

// example returns a method's example response, or nil.
func (d *openAPIDoc) example(method string) json.RawMessage {
	ex := d.Paths[method].Post.Responses["200"].Content["application/json"].Example
	if len(bytes.TrimSpace(ex)) == 0 {
		return nil
	}
	return ex
}

// readMethod reports whether an openapi.json method is a read method the
// typed API must cover: broadcasts, debug_node_api and jsonrpc.* are not.
func readMethod(method string) bool {
	api, _, _ := strings.Cut(method, ".")
	return api != "debug_node_api" && api != "jsonrpc" && !strings.Contains(method, "broadcast")
}

// docError is a known mistake of openapi.json's example for a method, and
// how the test still checks the method: the example is another method's
// (sameAs), or fix turns it into the result hived writes, failing when the
// example is not the mistake described.
type docError struct {
	why    string
	sameAs string
	fix    func(example json.RawMessage) (json.RawMessage, bool)
}

// openAPIDocErrors lists the examples that are not a result the method can
// return. Each is still checked: that the mistake is what this table says.
var openAPIDocErrors = map[string]docError{
	"condenser_api.get_order_book": {
		why:    "the example is get_ops_in_block's (a copy-paste in the document)",
		sameAs: "condenser_api.get_ops_in_block",
	},
	"rc_api.get_resource_params": {
		why: `the example wraps the result in "rc_accounts", a key get_resource_params_return does not have (FC_REFLECT: resource_names, resource_params, size_info)`,
		fix: func(ex json.RawMessage) (json.RawMessage, bool) {
			var outer map[string]json.RawMessage
			if json.Unmarshal(ex, &outer) != nil || len(outer) != 1 || outer["rc_accounts"] == nil {
				return nil, false
			}
			return outer["rc_accounts"], true
		},
	},
	"account_by_key_api.get_key_references": {
		why: "the example's accounts is a flat list; get_key_references_return.accounts is one list per key (vector<vector<account_name_type>>), as the recorded condenser_api.get_key_references shows",
		fix: func(ex json.RawMessage) (json.RawMessage, bool) {
			var outer struct {
				Accounts []string `json:"accounts"`
			}
			if json.Unmarshal(ex, &outer) != nil || outer.Accounts == nil {
				return nil, false
			}
			b, err := json.Marshal(map[string][][]string{"accounts": {outer.Accounts}})
			return b, err == nil
		},
	},
	"condenser_api.get_potential_signatures": {
		why: "the example is {}; the result is a set of public keys (flat_set<public_key_type>), which fc writes as an array",
		fix: func(ex json.RawMessage) (json.RawMessage, bool) {
			return json.RawMessage("[]"), string(bytes.TrimSpace(ex)) == "{}"
		},
	},
}

// TestOpenAPIExamples decodes the example response of every read method of
// hived's openapi.json into the method's typed response, requires that no
// JSON key is left unknown, encodes the message back and compares it with
// the example as JSON values (as TestFixtures does for the recordings). A
// read method without a typed RPC fails the test.
func TestOpenAPIExamples(t *testing.T) {
	t.Parallel()
	dir := fixtures.Dir(t)
	raw, err := os.ReadFile(filepath.Join(dir, "openapi.json"))
	if err != nil {
		t.Fatalf("HIVEGATE_FIXTURES=%s: %v", dir, err)
	}
	var doc openAPIDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if len(doc.Paths) < 200 {
		t.Fatalf("openapi.json has %d methods, want the 215 of hived's document", len(doc.Paths))
	}
	reg, err := NewRegistry(protoregistry.GlobalFiles, protoregistry.GlobalTypes)
	if err != nil {
		t.Fatalf("NewRegistry: %v", err)
	}
	codec := NewCodec()
	var methods []string
	for name := range doc.Paths {
		if readMethod(name) {
			methods = append(methods, name)
		}
	}
	sort.Strings(methods)
	checked := 0
	for _, name := range methods {
		m, ok := reg.Lookup(name)
		if !ok {
			t.Errorf("%s: no typed RPC", name)
			continue
		}
		example := doc.example(name)
		if example == nil {
			t.Errorf("%s: openapi.json has no example response", name)
			continue
		}
		if de, ok := openAPIDocErrors[name]; ok {
			switch {
			case de.sameAs != "":
				if !sameJSONText(example, doc.example(de.sameAs)) {
					t.Errorf("%s: listed as a copy of %s's example (%s), but it is not", name, de.sameAs, de.why)
				}
				continue
			default:
				fixed, ok := de.fix(example)
				if !ok {
					t.Errorf("%s: listed as a documentation mistake (%s), but the example is not that mistake", name, de.why)
					continue
				}
				example = fixed
			}
		}
		if problem := roundTripFixture(codec, m, example); problem != "" {
			t.Errorf("%s: %s", name, problem)
			continue
		}
		checked++
	}
	t.Logf("openapi.json: %d read methods, %d examples round-tripped through their typed responses", len(methods), checked)
}

// sameJSONText reports whether two JSON texts hold the same value.
func sameJSONText(a, b []byte) bool {
	x, err1 := decodeGeneric(a)
	y, err2 := decodeGeneric(b)
	if err1 != nil || err2 != nil {
		return false
	}
	var c comparer
	c.generic(x, y, "")
	return len(c.diffs) == 0
}
