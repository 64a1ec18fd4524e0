package dispatch_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/dispatch"
)

// FuzzBlacklistedAccount checks BlacklistedAccount on arbitrary params: it
// never panics, what it reports is a listed name, and it finds at least
// what a plain encoding/json walk over a few account fields finds (so no
// shape of valid params hides a listed voter, sender or signer).
func FuzzBlacklistedAccount(f *testing.F) {
	// More seeds are in testdata/fuzz/FuzzBlacklistedAccount.
	f.Add([]byte(`[{"operations":[["vote",{"voter":"spammer","author":"a"}]]}]`))
	f.Add([]byte(`{"trx":{"operations":[{"type":"transfer_operation","value":{"from":"a","to":"bad1"}}]}}`))
	listed := func(s string) bool { return s == "spammer" || strings.HasPrefix(s, "bad") }
	f.Fuzz(func(t *testing.T, params []byte) {
		name, found := dispatch.BlacklistedAccount(params, listed)
		if found && !listed(name) {
			t.Fatalf("reported %q, which is not listed", name)
		}
		if !json.Valid(params) {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(params))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return
		}
		if ref, ok := referenceFind(v, listed); ok && !found {
			t.Fatalf("missed %q in %s", ref, params)
		}
	})
}

// referenceFind walks decoded JSON for listed strings under a few account
// fields, directly or in (nested) arrays.
func referenceFind(v any, listed func(string) bool) (string, bool) {
	fields := map[string]bool{"voter": true, "from": true, "required_auths": true, "account_auths": true}
	var names func(any) (string, bool)
	names = func(v any) (string, bool) {
		switch x := v.(type) {
		case string:
			return x, listed(x)
		case []any:
			for _, e := range x {
				if n, ok := names(e); ok {
					return n, true
				}
			}
		}
		return "", false
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if fields[k] {
				if n, ok := names(e); ok {
					return n, true
				}
			}
			if n, ok := referenceFind(e, listed); ok {
				return n, true
			}
		}
	case []any:
		for _, e := range x {
			if n, ok := referenceFind(e, listed); ok {
				return n, true
			}
		}
	}
	return "", false
}
