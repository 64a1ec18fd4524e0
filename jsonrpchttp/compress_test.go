package jsonrpchttp_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/jsonrpchttp"
)

// formStore is a cache entry's derived-form slot as the handler sees it,
// counting the forms made.
type formStore struct {
	mu    sync.Mutex
	forms map[any]any
	sets  int
}

func (f *formStore) Derived(k any) any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.forms[k]
}

func (f *formStore) SetDerived(k, v any, _ int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.forms == nil {
		f.forms = map[any]any{}
	}
	f.forms[k] = v
	f.sets++
	return true
}

func (f *formStore) GrowDerived(k, v any, _ int) bool { return f.Derived(k) == v }

// gzipCaller answers "cached:N" with a result of N bytes, a cache hit
// with one formStore per method (a cache entry), "stored:N" the same as
// the miss that stored it, "fresh:N" with one of N bytes and no store (not
// cached), and "fail" with an error.
type gzipCaller struct {
	fakeDispatcher
	mu     sync.Mutex
	stores map[string]*formStore
}

func newGzipCaller() *gzipCaller {
	c := &gzipCaller{}
	c.answer = c.call
	return c
}

func (c *gzipCaller) call(call *dispatch.Call) dispatch.Result {
	method := call.UpstreamMethod
	if method == "fail" {
		return dispatch.Result{Err: jsonrpc.NewError(jsonrpc.KindUpstreamUnavailable, "backend down", nil)}
	}
	kind, size, _ := strings.Cut(method, ":")
	n, _ := strconv.Atoi(size)
	// A result with some repetition, as JSON has, and some variety.
	var b strings.Builder
	b.WriteString(`[`)
	for i := 0; b.Len() < n-20; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":"account` + strconv.Itoa(i*7919%1000) + `","n":` + strconv.Itoa(i) + `}`)
	}
	b.WriteString(`]`)
	a := dispatch.Result{Result: json.RawMessage(b.String()), Cache: dispatch.CacheMiss}
	if kind == "cached" || kind == "stored" {
		c.mu.Lock()
		if c.stores == nil {
			c.stores = map[string]*formStore{}
		}
		s := c.stores[method]
		if s == nil {
			s = &formStore{}
			c.stores[method] = s
		}
		c.mu.Unlock()
		a.Forms = s
		if kind == "cached" {
			a.Cache = dispatch.CacheHit
		}
	}
	return a
}

// post sends body and returns the answer's headers and raw body.
func postGzip(t *testing.T, url, body, acceptEncoding string) (http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	// A Transport that does not decode gzip itself: the test reads the
	// raw bytes.
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ContentLength >= 0 && int(resp.ContentLength) != len(raw) {
		t.Errorf("Content-Length %d, body %d bytes", resp.ContentLength, len(raw))
	}
	return resp.Header, raw
}

// gunzip decodes one gzip member (no more).
func gunzip(t *testing.T, raw []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	zr.Multistream(false)
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	if rest, _ := io.ReadAll(zr); len(rest) != 0 {
		t.Errorf("more than one gzip member")
	}
	return out
}

// TestGzipAnswers: with Accept-Encoding: gzip, answers from the size
// threshold on are gzip-encoded and decode to exactly the bytes a client
// without it gets as plain JSON; smaller answers, clients that refuse gzip
// and a handler with compression off get plain JSON.
func TestGzipAnswers(t *testing.T) {
	t.Parallel()
	h := jsonrpchttp.NewHandler(newGzipCaller(), jsonrpchttp.HandlerOptions{CompressMinBytes: 1024})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	off := httptest.NewServer(jsonrpchttp.NewHandler(newGzipCaller(), jsonrpchttp.HandlerOptions{}))
	t.Cleanup(off.Close)
	big := func(id, method string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":[]}`
	}
	testCases := []struct {
		name, body string
		gzipped    bool
	}{
		{"fresh result", big("1", "fresh:5000"), true},
		{"cached result", big(`"a"`, "cached:5000"), true},
		{"large cached result", big("2", "cached:200000"), true},
		{"large fresh result", big("3", "fresh:200000"), true},
		{"small result", big("4", "cached:600"), false},
		{"error", big("5", "fail"), false},
		{"batch", "[" + big("1", "cached:3000") + "," + big("2", "fresh:3000") + "," + big("3", "fail") + "," + big("4", "cached:100") + "," + big("5", "cached:40000") + "]", true},
		{"batch of small answers over the threshold", "[" + big("1", "fresh:300") + "," + big("2", "cached:300") + "," + big("3", "fresh:700") + "]", true},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			plainHdr, plain := postGzip(t, srv.URL, tc.body, "")
			if plainHdr.Get("Content-Encoding") != "" || !json.Valid(plain) {
				t.Fatalf("without Accept-Encoding: Content-Encoding %q, valid JSON %v", plainHdr.Get("Content-Encoding"), json.Valid(plain))
			}
			if plainHdr.Get("Vary") != "Accept-Encoding" {
				t.Errorf("Vary %q, want Accept-Encoding", plainHdr.Get("Vary"))
			}
			hdr, raw := postGzip(t, srv.URL, tc.body, "gzip, deflate, br")
			if got := hdr.Get("Content-Encoding") == "gzip"; got != tc.gzipped {
				t.Fatalf("Content-Encoding %q, want gzip %v", hdr.Get("Content-Encoding"), tc.gzipped)
			}
			if tc.gzipped {
				if len(raw) >= len(plain)/2 {
					t.Errorf("gzip-encoded answer of %d bytes for %d plain", len(raw), len(plain))
				}
				raw = gunzip(t, raw)
			}
			if !bytes.Equal(raw, plain) {
				t.Errorf("decoded answer differs from the plain one:\n%.300s\n%.300s", raw, plain)
			}
			for _, refuse := range []string{"gzip;q=0", "identity", "br"} {
				if hdr, raw := postGzip(t, srv.URL, tc.body, refuse); hdr.Get("Content-Encoding") != "" || !bytes.Equal(raw, plain) {
					t.Errorf("Accept-Encoding %q: Content-Encoding %q", refuse, hdr.Get("Content-Encoding"))
				}
			}
			if hdr, raw := postGzip(t, off.URL, tc.body, "gzip"); hdr.Get("Content-Encoding") != "" || hdr.Get("Vary") != "" || !bytes.Equal(raw, plain) {
				t.Errorf("compression off: Content-Encoding %q, Vary %q", hdr.Get("Content-Encoding"), hdr.Get("Vary"))
			}
		})
	}
}

// TestGzipCachedResultCompressedOnce: the compressed form of a cached
// result is made on the first gzip-encoded answer and reused by the
// following ones, each with its own id.
func TestGzipCachedResultCompressedOnce(t *testing.T) {
	t.Parallel()
	caller := newGzipCaller()
	srv := httptest.NewServer(jsonrpchttp.NewHandler(caller, jsonrpchttp.HandlerOptions{CompressMinBytes: 1024}))
	t.Cleanup(srv.Close)
	for i, id := range []string{"1", `"two"`, "null", "4"} {
		body := `{"jsonrpc":"2.0","id":` + id + `,"method":"cached:8000"}`
		_, plain := postGzip(t, srv.URL, body, "")
		_, raw := postGzip(t, srv.URL, body, "gzip")
		got := gunzip(t, raw)
		if !bytes.Equal(got, plain) || !bytes.HasSuffix(got, []byte(`"id":`+id+`}`)) {
			t.Errorf("answer %d: %.100s ... %s", i, got, got[max(0, len(got)-20):])
		}
	}
	caller.mu.Lock()
	defer caller.mu.Unlock()
	if s := caller.stores["cached:8000"]; s == nil || s.sets != 1 {
		t.Errorf("forms made: %+v, want 1 for 4 answers", s)
	}
}

// TestGzipFormKeptForHitsOnly: the answer to the miss that stored a
// result is compressed with its envelope and keeps no form with the entry
// (a result read once is not kept twice); only hits make and keep one.
func TestGzipFormKeptForHitsOnly(t *testing.T) {
	t.Parallel()
	caller := newGzipCaller()
	srv := httptest.NewServer(jsonrpchttp.NewHandler(caller, jsonrpchttp.HandlerOptions{CompressMinBytes: 1024}))
	t.Cleanup(srv.Close)
	for _, method := range []string{"stored:8000", "cached:8000"} {
		body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `"}`
		_, plain := postGzip(t, srv.URL, body, "")
		if _, raw := postGzip(t, srv.URL, body, "gzip"); !bytes.Equal(gunzip(t, raw), plain) {
			t.Errorf("%s: the gzip-encoded answer differs from the plain one", method)
		}
	}
	caller.mu.Lock()
	defer caller.mu.Unlock()
	if s := caller.stores["stored:8000"]; s == nil || s.sets != 0 {
		t.Errorf("forms kept for a miss: %+v, want none", s)
	}
	if s := caller.stores["cached:8000"]; s == nil || s.sets != 1 {
		t.Errorf("forms kept for a hit: %+v, want 1", s)
	}
}
