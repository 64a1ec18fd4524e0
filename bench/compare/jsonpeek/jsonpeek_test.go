// Package jsonpeek_test measures reading the id, result and error members
// of a node's answer, the read-only job the backend does on every answer,
// with hivegate's jsonwire (what backend uses) and with
// github.com/tidwall/gjson, the maintained library issue 19 names for such
// peeks. Both check that the whole answer is valid JSON first, as the
// backend must before it hands result bytes on:
//
//	cd bench/compare && go test -run '^$' -bench . -benchmem ./jsonpeek
//
// gjson is not used in the product (it lives in the module bench/compare,
// not in hivegate's): jsonwire does the same job in one pass
// (gjson needs ValidBytes and then a second scan), and the backend needs
// what gjson does not report, such as a member given twice.
package jsonpeek_test

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/hivegate/hivegate/bench/fakenode"
	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/jsonwire"
)

// answers are a small and a large real-shaped answer: condenser
// get_dynamic_global_properties (~1.5 KB) and list_accounts of 1000
// accounts (~2.8 MB).
func answers(tb testing.TB) map[string][]byte {
	tb.Helper()
	a, err := fakenode.NewAnswers(fakenode.Options{Accounts: hivesim.DefaultAccounts})
	if err != nil {
		tb.Fatal(err)
	}
	id := json.RawMessage("7")
	return map[string][]byte{
		"dgpo":               fakenode.Envelope(nil, id, a.CondenserDGPO),
		"list_accounts_1000": fakenode.Envelope(nil, id, a.ListAccounts),
	}
}

// peek is one read: the three members, or ok false.
type peek func(answer []byte) (id, result, errObj []byte, ok bool)

func withJSONWire(answer []byte) (id, result, errObj []byte, ok bool) {
	it := jsonwire.Members(answer, 0, math.MaxInt32)
	for it.Next() {
		switch name := it.Name(); {
		case jsonwire.EqualString(name, "id"):
			id = it.Value()
		case jsonwire.EqualString(name, "result"):
			result = it.Value()
		case jsonwire.EqualString(name, "error"):
			errObj = it.Value()
		}
	}
	if it.Err() != nil || jsonwire.SkipSpace(answer, it.End()) != len(answer) {
		return nil, nil, nil, false
	}
	return id, result, errObj, true
}

func withGJSON(answer []byte) (id, result, errObj []byte, ok bool) {
	if !gjson.ValidBytes(answer) {
		return nil, nil, nil, false
	}
	r := gjson.GetManyBytes(answer, "id", "result", "error")
	raw := func(v gjson.Result) []byte {
		if !v.Exists() {
			return nil
		}
		return answer[v.Index : v.Index+len(v.Raw)]
	}
	return raw(r[0]), raw(r[1]), raw(r[2]), true
}

// TestSameMembers shows that both read the same bytes, so that the
// benchmark compares equal work.
func TestSameMembers(t *testing.T) {
	t.Parallel()
	for name, answer := range answers(t) {
		i1, r1, e1, ok1 := withJSONWire(answer)
		i2, r2, e2, ok2 := withGJSON(answer)
		if !ok1 || !ok2 || string(i1) != string(i2) || string(r1) != string(r2) || string(e1) != string(e2) || len(r1) == 0 || !json.Valid(r1) {
			t.Errorf("%s: jsonwire (%v, id %s, %d result bytes) and gjson (%v, id %s, %d result bytes) differ", name, ok1, i1, len(r1), ok2, i2, len(r2))
		}
	}
}

func BenchmarkPeek(b *testing.B) {
	for name, answer := range answers(b) {
		for _, p := range []struct {
			lib  string
			peek peek
		}{{"jsonwire", withJSONWire}, {"gjson", withGJSON}} {
			b.Run(name+"/"+p.lib, func(b *testing.B) {
				b.SetBytes(int64(len(answer)))
				b.ReportAllocs()
				for b.Loop() {
					if _, _, _, ok := p.peek(answer); !ok {
						b.Fatal("answer " + strconv.Itoa(len(answer)) + " bytes not read")
					}
				}
			})
		}
	}
}
