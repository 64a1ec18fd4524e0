package backend

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseEnvelope(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name       string
		body       string
		wantResult string
		wantError  string
		wantReason string // substring; empty means valid
	}{
		{name: "result", body: `{"jsonrpc":"2.0","id":7,"result":{"a":[1,2]}}`, wantResult: `{"a":[1,2]}`},
		{name: "result first, spaces", body: " {\n \"result\" : [ 1 ] , \"id\" : 7 }\n", wantResult: `[ 1 ]`},
		{name: "error", body: `{"jsonrpc":"2.0","error":{"code":-32000,"message":"x"},"id":7}`, wantError: `{"code":-32000,"message":"x"}`},
		{name: "string id", body: `{"id":"7","result":1}`, wantResult: `1`},
		{name: "escaped string id", body: `{"id":"\u0037","result":1}`, wantResult: `1`},
		{name: "exponent id", body: `{"id":7e0,"result":1}`, wantReason: "wrong id"},
		{name: "zero-padded string id", body: `{"id":"007","result":1}`, wantReason: "wrong id"},
		{name: "escaped key", body: `{"id":7,"r\u0065sult":true}`, wantResult: `true`},
		{name: "error null beside result", body: `{"id":7,"result":0,"error":null}`, wantResult: `0`},
		{name: "null id with error", body: `{"id":null,"error":{"code":-32700,"message":"parse"}}`, wantReason: "wrong id"},
		{name: "null result", body: `{"id":7,"result":null}`, wantResult: `null`},
		{name: "extra members ignored", body: `{"id":7,"result":1,"x":{"y":[]}}`, wantResult: `1`},
		{name: "empty", body: ``, wantReason: "empty body"},
		{name: "spaces only", body: "  \n", wantReason: "empty body"},
		{name: "html", body: `<html></html>`, wantReason: "not JSON"},
		{name: "bare string", body: `"ok"`, wantReason: "not a response object"},
		{name: "array", body: `[{"id":7,"result":1}]`, wantReason: "array"},
		{name: "broken array", body: `[{"id":7,`, wantReason: "truncated JSON"},
		{name: "truncated", body: `{"id":7,"result":{"a":`, wantReason: "truncated JSON"},
		{name: "truncated after value", body: `{"id":7,"result":1`, wantReason: "truncated JSON"},
		{name: "truncated after comma", body: `{"id":7,`, wantReason: "truncated JSON"},
		{name: "truncated after brace", body: `{`, wantReason: "truncated JSON"},
		{name: "invalid inside result", body: `{"id":7,"result":[1,,2]}`, wantReason: "invalid JSON"},
		{name: "bad key", body: `{id:7,"result":1}`, wantReason: "invalid JSON"},
		{name: "bad separator", body: `{"id":7;"result":1}`, wantReason: "invalid JSON"},
		{name: "trailing data", body: `{"id":7,"result":1}{}`, wantReason: "data after"},
		{name: "trailing data after a bad response", body: `{"result":1}{}`, wantReason: "data after"},
		{name: "two ids before invalid JSON", body: `{"id":7,"id":7,"result":[}`, wantReason: `two "id"`},
		{name: "wrong id", body: `{"id":8,"result":1}`, wantReason: "wrong id"},
		{name: "wrong string id", body: `{"id":"x","result":1}`, wantReason: "wrong id"},
		{name: "negative id", body: `{"id":-7,"result":1}`, wantReason: "wrong id"},
		{name: "no id", body: `{"result":1}`, wantReason: "without an id"},
		{name: "null id with result", body: `{"id":null,"result":1}`, wantReason: "null id"},
		{name: "neither", body: `{"id":7}`, wantReason: "neither"},
		{name: "empty object", body: `{}`, wantReason: "without an id"},
		{name: "only null error", body: `{"id":7,"error":null}`, wantReason: "neither"},
		{name: "both", body: `{"id":7,"result":1,"error":{"code":1}}`, wantReason: "both"},
		{name: "error not object", body: `{"id":7,"error":"boom"}`, wantReason: "not an object"},
		{name: "two results", body: `{"id":7,"result":1,"result":2}`, wantReason: `two "result"`},
		{name: "two ids", body: `{"id":7,"id":7,"result":1}`, wantReason: `two "id"`},
		{name: "two errors", body: `{"id":7,"error":{},"error":{}}`, wantReason: `two "error"`},
	}
	for _, tc := range testCases {
		env, reason := parseEnvelope([]byte(tc.body), 7)
		if tc.wantReason != "" {
			if !strings.Contains(reason, tc.wantReason) {
				t.Errorf("%s: reason %q, want one containing %q", tc.name, reason, tc.wantReason)
			}
			continue
		}
		if reason != "" {
			t.Errorf("%s: rejected: %s", tc.name, reason)
			continue
		}
		if string(env.result) != tc.wantResult || string(env.errObj) != tc.wantError {
			t.Errorf("%s: result %q error %q; want %q %q", tc.name, env.result, env.errObj, tc.wantResult, tc.wantError)
		}
		if (env.result == nil) == (env.errObj == nil) {
			t.Errorf("%s: want exactly one of result and error", tc.name)
		}
	}
}

func TestParseEnvelopeTruncated(t *testing.T) {
	t.Parallel()
	// Every way an answer can be cut off: inside each kind of value, an
	// escape, a literal, a number, between members and elements.
	full := ` {"jsonrpc":"2.0","result":{"a":[1,-2.5e+3,"x\u00e9\n",true,false,null,{"b":{}},[]],"c":0.5E-7},"id":7} `
	if _, reason := parseEnvelope([]byte(full), 7); reason != "" {
		t.Fatalf("the whole answer is refused: %s", reason)
	}
	for n := 2; n < len(full)-1; n++ {
		if _, reason := parseEnvelope([]byte(full[:n]), 7); reason != "truncated JSON" {
			t.Errorf("prefix %q: reason %q, want truncated JSON", full[:n], reason)
		}
	}
	// A byte that cannot continue the value is invalid, not truncated.
	for _, body := range []string{`{"id":7,"result":tx`, `{"id":7,"result":"\u00x`, `{"id":7,"result":"\x`, `{"id":7,"result":1.x`, `{"id":7,"result":[}`} {
		if _, reason := parseEnvelope([]byte(body), 7); reason != "invalid JSON" {
			t.Errorf("%q: reason %q, want invalid JSON", body, reason)
		}
	}
}

func TestParseEnvelopeNoDepthLimit(t *testing.T) {
	t.Parallel()
	// A node's answer may nest as deep as its data: the pool sets no limit.
	const depth = 100000
	deep := strings.Repeat("[", depth) + strings.Repeat("]", depth)
	env, reason := parseEnvelope([]byte(`{"id":7,"result":`+deep+`}`), 7)
	if reason != "" || len(env.result) != len(deep) {
		t.Fatalf("deep result: reason %q, %d bytes", reason, len(env.result))
	}
}

// FuzzParseResponse checks parseResponse against encoding/json: what it
// accepts is valid JSON, and what it calls invalid or truncated is not.
func FuzzParseResponse(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":7,"result":{"a":[1,2]}}`, `{"id":7,"error":{"code":1}}`, `{"id":"\u0037","r\u0065sult":"\ud800"}`, `[{"id":7,"result":1}]`, `{"id":7,"result":tru`, `"x"`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		env, _, reason := parseResponse(body)
		var wantValid bool
		switch reason {
		case "":
			if (env.result == nil) == (env.errObj == nil) {
				t.Fatalf("%q: want exactly one of result and error", body)
			}
			wantValid = true
		case "a JSON value that is not a response object", "a response without an id", "a response with a null id",
			"a response with both result and error", "a response with neither result nor error",
			"an error member that is not an object":
			wantValid = true // decided after the whole body was read
		case "truncated JSON", "invalid JSON", "a body that is not JSON":
			wantValid = false
		default:
			return // two members, data after the object, an array: decided before the end
		}
		if json.Valid(body) != wantValid {
			t.Fatalf("%q: reason %q, but json.Valid is %v", body, reason, !wantValid)
		}
	})
}

func BenchmarkParseEnvelope(b *testing.B) {
	for _, size := range []int{1 << 10, 1 << 20} {
		body := []byte(`{"jsonrpc":"2.0","id":7,"result":{"blocks":["` + strings.Repeat(`x\"y`, size/4) + `"]}}`)
		b.Run(strings.TrimSpace(formatBytes(int64(size))), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, reason := parseEnvelope(body, 7); reason != "" {
					b.Fatal(reason)
				}
			}
		})
	}
}
