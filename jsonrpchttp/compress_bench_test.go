package jsonrpchttp_test

// The splice of kept deflate forms (compress.go) against
// klauspost/compress/gzhttp wrapped around an uncompressed handler, on a
// cached hit answered to a client that accepts gzip.

import (
	"compress/gzip"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzhttp"

	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/jsonrpchttp"
)

// hitCaller answers every call with the same result, a cache hit whose
// forms are kept in one formStore as a cache entry's are.
type hitCaller struct {
	fakeDispatcher
	result json.RawMessage
	forms  formStore
}

func newHitCaller(result json.RawMessage) *hitCaller {
	c := &hitCaller{result: result}
	c.answer = func(*dispatch.Call) dispatch.Result {
		return dispatch.Result{Result: c.result, Forms: &c.forms, Cache: dispatch.CacheHit}
	}
	return c
}

// accountsResult is a result of about n bytes shaped like a list of
// accounts: repetitive keys, varied values.
func accountsResult(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`[`)
	for i := 0; b.Len() < n-120; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":` + strconv.Itoa(1000+i*7919%100000) + `,"name":"account` + strconv.Itoa(i*7919%100000) +
			`","balance":"` + strconv.Itoa(i*104729%1000000) + `.` + strconv.Itoa(100+i%900) + ` HIVE","post_count":` +
			strconv.Itoa(i*31%5000) + `,"created":"2019-0` + strconv.Itoa(1+i%9) + `-1` + strconv.Itoa(i%10) + `T12:0` + strconv.Itoa(i%10) + `:33"}`)
	}
	b.WriteString(`]`)
	return json.RawMessage(b.String())
}

// BenchmarkGzipCachedHit serves a cached hit of about 1.5 KB and 100 KB to
// a client that accepts gzip: "splice" is the handler's own compression,
// "gzhttp_default" and "gzhttp_fastest" are gzhttp at its default level and
// at BestSpeed around a handler that does not compress, "plain" is no
// compression at all. gz_bytes is the size of the answer sent.
func BenchmarkGzipCachedHit(b *testing.B) {
	fastest, err := gzhttp.NewWrapper(gzhttp.CompressionLevel(gzip.BestSpeed), gzhttp.MinSize(1024))
	if err != nil {
		b.Fatal(err)
	}
	for _, size := range []int{1500, 100_000} {
		result := accountsResult(size)
		handlers := []struct {
			name string
			make func(c *hitCaller) http.Handler
		}{
			{"splice", func(c *hitCaller) http.Handler {
				return jsonrpchttp.NewHandler(c, jsonrpchttp.HandlerOptions{CompressMinBytes: 1024})
			}},
			{"gzhttp_default", func(c *hitCaller) http.Handler {
				return gzhttp.GzipHandler(jsonrpchttp.NewHandler(c, jsonrpchttp.HandlerOptions{}))
			}},
			{"gzhttp_fastest", func(c *hitCaller) http.Handler {
				return fastest(jsonrpchttp.NewHandler(c, jsonrpchttp.HandlerOptions{}))
			}},
			{"plain", func(c *hitCaller) http.Handler {
				return jsonrpchttp.NewHandler(c, jsonrpchttp.HandlerOptions{})
			}},
		}
		for _, hc := range handlers {
			b.Run(strconv.Itoa(len(result))+"B/"+hc.name, func(b *testing.B) {
				h := hc.make(newHitCaller(result))
				body := `{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_accounts","params":[["alice"]]}`
				serve := func() *httptest.ResponseRecorder {
					r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
					r.Header.Set("Content-Type", "application/json")
					r.Header.Set("Accept-Encoding", "gzip")
					w := httptest.NewRecorder()
					h.ServeHTTP(w, r)
					return w
				}
				w := serve() // makes the kept form, as the first hit does
				if gz := w.Header().Get("Content-Encoding") == "gzip"; gz != (hc.name != "plain") {
					b.Fatalf("%s: Content-Encoding %q", hc.name, w.Header().Get("Content-Encoding"))
				}
				sent := w.Body.Len()
				b.ReportAllocs()
				b.SetBytes(int64(len(result)))
				for b.Loop() {
					serve()
				}
				b.ReportMetric(float64(sent), "gz_bytes")
			})
		}
	}
}
