package gateway_test

// Cost of a cached ListAccounts(limit 1000) through the handler tree, typed
// (Connect binary and JSON, gRPC) against the equivalent JSON-RPC call. The
// requests are served in-process (no sockets, no client), so the figures
// are the server's own: routing, cache hit, the decoded message reused from
// the cache entry, and encoding the answer.

import (
	"bytes"
	"encoding/binary"
	"net/http"
	"net/http/httptest"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
	dbv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
	"github.com/hivegate/hivegate/hivesim"
)

// BenchmarkCachedListAccounts1000 compares one cached list_accounts call
// of 1000 accounts over each front end, with the default cache capacity:
// in the tests' 64 MiB cache a shard (4 MiB) has no room for the 2.9 MB
// result's decoded message, so every typed hit decoded it again.
func BenchmarkCachedListAccounts1000(b *testing.B) {
	g := startTypedGatewayWith(b, hivesim.New(hivesim.Options{Seed: 1, Accounts: 1200}), gateway.Options{}, func(c *config.Config) {
		c.Settings.CacheMaxCapacity = config.DefaultCacheMaxCapacity
	})
	h := g.gw.Handler()
	req := &dbv1.ListAccountsRequest{Limit: proto.Uint32(1000), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME}
	bin, err := proto.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	js, err := protojson.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	grpcFrame := make([]byte, 5, 5+len(bin))
	binary.BigEndian.PutUint32(grpcFrame[1:], uint32(len(bin)))
	grpcFrame = append(grpcFrame, bin...)
	const path = "/hive.database_api.v1.DatabaseApiService/ListAccounts"
	cases := []struct {
		name    string
		path    string
		ctype   string
		body    []byte
		proto2  bool
		headers map[string]string
	}{
		{name: "jsonrpc", path: "/", ctype: "application/json",
			body: []byte(`{"jsonrpc":"2.0","id":1,"method":"database_api.list_accounts","params":{"start":"","limit":1000,"order":"by_name"}}`)},
		{name: "connect+proto", path: path, ctype: "application/proto", body: bin},
		{name: "connect+json", path: path, ctype: "application/json", body: js},
		{name: "grpc", path: path, ctype: "application/grpc", body: grpcFrame, proto2: true, headers: map[string]string{"Te": "trailers"}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			serve := func() *httptest.ResponseRecorder {
				r := httptest.NewRequest(http.MethodPost, c.path, bytes.NewReader(c.body))
				r.Header.Set("Content-Type", c.ctype)
				for k, v := range c.headers {
					r.Header.Set(k, v)
				}
				if c.proto2 {
					r.ProtoMajor, r.ProtoMinor, r.Proto = 2, 0, "HTTP/2.0"
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				return w
			}
			w := serve() // fills the cache (and the typed form)
			if w.Code != http.StatusOK {
				b.Fatalf("status %d: %s", w.Code, w.Body.Bytes())
			}
			if got := w.Header().Get("X-Hivegate-Cache"); got != "miss" && got != "hit" {
				b.Fatalf("x-hivegate-cache %q", got)
			}
			size := w.Body.Len()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				w := serve()
				if w.Header().Get("X-Hivegate-Cache") != "hit" {
					b.Fatalf("not a cache hit: %q", w.Header().Get("X-Hivegate-Cache"))
				}
			}
			b.ReportMetric(float64(size), "resp-bytes")
		})
	}
}
