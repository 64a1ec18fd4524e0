package gateway_test

import (
	"context"
	"sync"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"github.com/hivegate/hivegate/gateway"
	dbv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
	"github.com/hivegate/hivegate/gen/hive/database_api/v1/database_apiv1connect"
)

// TestCachedEncodingsStayCorrect serves one cached typed answer many times,
// concurrently, over every protocol and encoding: the encoded bytes kept on
// the cache entry must decode to the same message every time (they are
// copied into connect's pooled buffers, never handed over).
func TestCachedEncodingsStayCorrect(t *testing.T) {
	t.Parallel()
	g := simGateway(t, gateway.Options{})
	clients := map[string]database_apiv1connect.DatabaseApiServiceClient{
		"connect+json":  database_apiv1connect.NewDatabaseApiServiceClient(g.h1, g.srv.URL, connect.WithProtoJSON()),
		"connect+proto": database_apiv1connect.NewDatabaseApiServiceClient(g.h1, g.srv.URL),
		"grpc":          database_apiv1connect.NewDatabaseApiServiceClient(g.h2c, g.srv.URL, connect.WithGRPC()),
		"grpcweb+json":  database_apiv1connect.NewDatabaseApiServiceClient(g.h1, g.srv.URL, connect.WithGRPCWeb(), connect.WithProtoJSON()),
	}
	req := &dbv1.ListAccountsRequest{Limit: proto.Uint32(50), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME}
	first, err := clients["connect+proto"].ListAccounts(context.Background(), connect.NewRequest(req))
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Msg.GetAccounts()) != 50 || first.Msg.GetNextStart() == nil {
		t.Fatalf("first page: %d accounts, next_start %v", len(first.Msg.GetAccounts()), first.Msg.GetNextStart())
	}
	var wg sync.WaitGroup
	for name, c := range clients {
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := c.ListAccounts(context.Background(), connect.NewRequest(req))
				if err != nil {
					t.Errorf("%s: %v", name, err)
					return
				}
				if got := resp.Header().Get("X-Hivegate-Cache"); got != "hit" {
					t.Errorf("%s: cache %q, want hit", name, got)
				}
				if !proto.Equal(resp.Msg, first.Msg) {
					t.Errorf("%s: a cached answer differs from the first", name)
				}
			}()
		}
	}
	wg.Wait()
	if n := g.backend.count("database_api.list_accounts"); n != 1 {
		t.Errorf("%d upstream calls, want 1", n)
	}
}
