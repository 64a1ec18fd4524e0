package hivesim_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hivegate/hivegate/hivesim"
)

// fakeClock is a settable clock for Options.Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// client talks JSON-RPC to a handler served by an httptest server on 127.0.0.1.
type client struct {
	url string
}

func serve(t *testing.T, h http.Handler) *client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &client{url: srv.URL}
}

// testNode starts a node with a fixed clock and serves it.
func testNode(t *testing.T, seed int64) (*hivesim.Node, *client, *fakeClock) {
	t.Helper()
	clk := &fakeClock{t: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	n := hivesim.New(hivesim.Options{Seed: seed, Now: clk.Now})
	return n, serve(t, n), clk
}

type rpcErr struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	Result  json.RawMessage `json:"result"`
	Error   *rpcErr         `json:"error"`
	ID      json.RawMessage `json:"id"`
}

func (c *client) post(t testing.TB, body []byte) []byte {
	t.Helper()
	resp, err := http.Post(c.url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading response: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, out)
	}
	return out
}

func request(method string, params any) []byte {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		panic(err)
	}
	return b
}

func (c *client) call(t testing.TB, method string, params any) response {
	t.Helper()
	raw := c.post(t, request(method, params))
	var r response
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%s: decoding %s: %v", method, raw, err)
	}
	return r
}

// result calls method and fails the test on a JSON-RPC error.
func (c *client) result(t testing.TB, method string, params any) any {
	t.Helper()
	r := c.call(t, method, params)
	if r.Error != nil {
		t.Fatalf("%s %v: error %d %s", method, params, r.Error.Code, r.Error.Message)
	}
	return decode(t, r.Result)
}

// expectError calls method and checks the error code and message.
func (c *client) expectError(t testing.TB, method string, params any, code int, message string) response {
	t.Helper()
	r := c.call(t, method, params)
	if r.Error == nil {
		t.Fatalf("%s %v: want error %d %q, got result %.200s", method, params, code, message, r.Result)
	}
	if r.Error.Code != code || r.Error.Message != message {
		t.Fatalf("%s %v: error = %d %q, want %d %q", method, params, r.Error.Code, r.Error.Message, code, message)
	}
	return r
}

func decode(t testing.TB, raw []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return v
}

type obj = map[string]any

func field(t testing.TB, v any, key string) any {
	t.Helper()
	m, ok := v.(obj)
	if !ok {
		t.Fatalf("not an object: %v", v)
	}
	x, ok := m[key]
	if !ok {
		t.Fatalf("object has no %q: %v", key, m)
	}
	return x
}

func items(t testing.TB, v any, key string) []obj {
	t.Helper()
	arr, ok := field(t, v, key).([]any)
	if !ok {
		t.Fatalf("%q is not an array", key)
	}
	out := make([]obj, len(arr))
	for i, e := range arr {
		out[i] = e.(obj)
	}
	return out
}

func str(o obj, k string) string {
	s, _ := o[k].(string)
	return s
}

// num reads a number that hived may have written as a string.
func num(o obj, k string) int64 {
	switch x := o[k].(type) {
	case json.Number:
		i, _ := x.Int64()
		return i
	case string:
		i, _ := strconv.ParseInt(x, 10, 64)
		return i
	}
	return 0
}

func ids(o obj, keys ...string) string {
	var b []byte
	for i, k := range keys {
		if i > 0 {
			b = append(b, '|')
		}
		switch x := o[k].(type) {
		case string:
			b = append(b, x...)
		case json.Number:
			b = append(b, x...)
		}
	}
	return string(b)
}
