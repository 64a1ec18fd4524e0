package jsonrpc_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/jsonrpc"
)

func TestParseBodySingle(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body     string
		method, params string // params "" means absent
		id             string
		code           jsonrpc.Code // 0: valid
	}{
		{"positional", `{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_block","params":[1]}`, "condenser_api.get_block", `[1]`, `1`, 0},
		{"named", `{"id":"x","params":{"a":[1, 2]},"method":"m","jsonrpc":"2.0"}`, "m", `{"a":[1, 2]}`, `"x"`, 0},
		{"no params", `{"jsonrpc":"2.0","id":null,"method":"m"}`, "m", "", `null`, 0},
		{"null params", `{"jsonrpc":"2.0","id":2,"method":"m","params":null}`, "m", "", `2`, 0},
		{"escaped method", `{"jsonrpc":"2.0","id":3,"method":"get_\u0062lock"}`, "get_block", "", `3`, 0},
		{"whitespace everywhere", " \r\n\t{ \"jsonrpc\" : \"2.0\" , \"id\" : 4 , \"method\" : \"m\" , \"params\" : [ ] } \n", "m", `[ ]`, `4`, 0},
		{"large id", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"m"}`, "m", "", `123456789012345678901234567890`, 0},
		{"negative id", `{"jsonrpc":"2.0","id":-5,"method":"m"}`, "m", "", `-5`, 0},
		{"escaped string id", `{"jsonrpc":"2.0","id":"a\"\u00e9","method":"m"}`, "m", "", `"a\"\u00e9"`, 0},
		{"duplicate member, last wins", `{"jsonrpc":"2.0","id":1,"id":2,"method":"a","method":"b"}`, "b", "", `2`, 0},
		{"escaped version", `{"jsonrpc":"2\u002e0","id":1,"method":"m"}`, "m", "", `1`, 0},
		{"empty object", `{ }`, "", "", `null`, jsonrpc.CodeInvalidRequest},
		{"unknown members ignored", `{"jsonrpc":"2.0","id":1,"method":"m","extra":{"x":[1]}}`, "m", "", `1`, 0},
		{"float id", `{"jsonrpc":"2.0","id":1.0,"method":"m"}`, "", "", `null`, jsonrpc.CodeInvalidRequest},
		{"bool id", `{"jsonrpc":"2.0","id":false,"method":"m"}`, "", "", `null`, jsonrpc.CodeInvalidRequest},
		{"missing id", `{"jsonrpc":"2.0","method":"m"}`, "", "", `null`, jsonrpc.CodeInvalidRequest},
		{"bad version", `{"jsonrpc":"2","id":1,"method":"m"}`, "", "", `1`, jsonrpc.CodeInvalidRequest},
		{"method object", `{"jsonrpc":"2.0","id":1,"method":{}}`, "", "", `1`, jsonrpc.CodeInvalidRequest},
		{"params string", `{"jsonrpc":"2.0","id":1,"method":"m","params":"[1]"}`, "", "", `1`, jsonrpc.CodeInvalidRequest},
		{"array of one non-object", `[1]`, "", "", `null`, jsonrpc.CodeInvalidRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, perr := jsonrpc.ParseBody([]byte(tc.body), 50, 0)
			if perr != nil {
				t.Fatalf("body error %v", perr)
			}
			el := b.Elements[0]
			if string(el.Req.ID) != tc.id {
				t.Errorf("id %s, want %s", el.Req.ID, tc.id)
			}
			if tc.code != 0 {
				if el.Err == nil || el.Err.Code != tc.code {
					t.Errorf("error %v, want code %d", el.Err, tc.code)
				}
				return
			}
			if el.Err != nil {
				t.Fatalf("unexpected error %v", el.Err)
			}
			if el.Req.Method != tc.method || string(el.Req.Params) != tc.params {
				t.Errorf("method %q params %q, want %q %q", el.Req.Method, el.Req.Params, tc.method, tc.params)
			}
		})
	}
}

func TestParseBodyErrors(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 65) + strings.Repeat("]", 65)
	cases := []struct {
		name, body string
		maxBatch   int
		code       jsonrpc.Code
	}{
		{"empty", ``, 50, jsonrpc.CodeParseError},
		{"spaces only", " \n\t", 50, jsonrpc.CodeParseError},
		{"not JSON", `{"a"`, 50, jsonrpc.CodeParseError},
		{"two values", `{} {}`, 50, jsonrpc.CodeParseError},
		{"non-JSON space", "\u00a0{}", 50, jsonrpc.CodeParseError},
		{"vertical tab", "\v{}", 50, jsonrpc.CodeParseError},
		{"empty batch", `[]`, 50, jsonrpc.CodeInvalidRequest},
		{"empty batch with spaces", "[ \n ]", 50, jsonrpc.CodeInvalidRequest},
		{"batch over the limit", `[{},{},{}]`, 2, jsonrpc.CodeBatchTooLarge},
		{"too deep", deep, 50, jsonrpc.CodeRequestTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, perr := jsonrpc.ParseBody([]byte(tc.body), tc.maxBatch, 0)
			if perr == nil || perr.Code != tc.code {
				t.Fatalf("got body %+v error %v, want code %d", b, perr, tc.code)
			}
		})
	}
}

func TestParseBodyBatch(t *testing.T) {
	t.Parallel()
	body := ` [ {"jsonrpc":"2.0","id":1,"method":"a","params":[1]} ,
	5, {"jsonrpc":"2.0","id":"two","method":"b"},{"id":3}, [] ] `
	b, perr := jsonrpc.ParseBody([]byte(body), 5, 0)
	if perr != nil {
		t.Fatal(perr)
	}
	if !b.Batch || len(b.Elements) != 5 {
		t.Fatalf("batch %v with %d elements, want 5", b.Batch, len(b.Elements))
	}
	want := []struct {
		id, method string
		valid      bool
	}{{`1`, "a", true}, {`null`, "", false}, {`"two"`, "b", true}, {`3`, "", false}, {`null`, "", false}}
	for i, w := range want {
		el := b.Elements[i]
		if string(el.Req.ID) != w.id || (el.Err == nil) != w.valid || (w.valid && el.Req.Method != w.method) {
			t.Errorf("element %d: id %s method %q err %v, want id %s method %q valid %v", i, el.Req.ID, el.Req.Method, el.Err, w.id, w.method, w.valid)
		}
	}
	if _, perr := jsonrpc.ParseBody([]byte(body), 4, 0); perr == nil || perr.Code != jsonrpc.CodeBatchTooLarge {
		t.Errorf("5 elements with a limit of 4: %v, want batch too large", perr)
	} else if !strings.Contains(perr.Message, "5 requests") {
		t.Errorf("message %q does not say how many requests the batch had", perr.Message)
	}
}

func TestAppendResponses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		got  []byte
		want string
	}{
		{"result", jsonrpc.AppendResult(nil, json.RawMessage(`"x"`), json.RawMessage(`{"a":[1]}`)), `{"jsonrpc":"2.0","result":{"a":[1]},"id":"x"}`},
		{"empty result is null", jsonrpc.AppendResult(nil, json.RawMessage(`1`), nil), `{"jsonrpc":"2.0","result":null,"id":1}`},
		{"empty id is null", jsonrpc.AppendResult(nil, nil, json.RawMessage(`1`)), `{"jsonrpc":"2.0","result":1,"id":null}`},
		{"gateway error", jsonrpc.AppendError(nil, json.RawMessage(`7`), jsonrpc.NewError(jsonrpc.KindBatchTooLarge, "51 > 50", nil)),
			`{"jsonrpc":"2.0","error":{"code":-32013,"message":"Batch too large: 51 > 50","data":{"name":"batch_too_large"}},"id":7}`},
		{"backend error raw", jsonrpc.AppendError(nil, json.RawMessage(`null`), jsonrpc.BackendError(json.RawMessage(`{ "code" : -32000 }`))),
			`{"jsonrpc":"2.0","error":{ "code" : -32000 },"id":null}`},
		{"message escaping", jsonrpc.AppendError(nil, json.RawMessage(`1`), jsonrpc.NewError(jsonrpc.KindInvalidRequest, "a\"b\\c\n<é>\x01\xff", nil)),
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: a\"b\\c\n<é>\u0001\ufffd","data":{"name":"invalid_request"}},"id":1}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if !bytes.Equal(tc.got, []byte(tc.want)) {
				t.Errorf("got  %s\nwant %s", tc.got, tc.want)
			}
			if !json.Valid(tc.got) {
				t.Errorf("not valid JSON: %s", tc.got)
			}
		})
	}
}
