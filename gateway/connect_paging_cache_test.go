package gateway_test

import (
	"context"
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/hivegate/hivegate/gateway"
	dbv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
	"github.com/hivegate/hivegate/hivesim"
)

// TestTypedPageSkipCached: two typed requests that send the node the same
// params but differ in next_start's skip (limit 2, and limit 1 skip 1: both
// ask for 2 accounts) share the cache entry, yet each is answered its own
// page: the decoded message kept with the entry is kept per skip, so a hit
// is never cut by another request's skip.
func TestTypedPageSkipCached(t *testing.T) {
	t.Parallel()
	node := hivesim.New(hivesim.Options{Seed: 1})
	g := startTypedGateway(t, node, gateway.Options{})
	d, err := protoregistry.GlobalFiles.FindDescriptorByName("hive.database_api.v1.DatabaseApiService.ListAccounts")
	if err != nil {
		t.Fatal(err)
	}
	md := d.(protoreflect.MethodDescriptor)
	ask := func(limit, skip uint32) (names []string, cache string) {
		t.Helper()
		start := &dbv1.ListAccountsStart{Start: &dbv1.ListAccountsStart_ByName_{ByName: &dbv1.ListAccountsStart_ByName{}}}
		if skip > 0 {
			start.Skip = proto.Uint32(skip)
		}
		req := &dbv1.ListAccountsRequest{Limit: proto.Uint32(limit), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME, Start: start}
		resp := &dbv1.ListAccountsResponse{}
		h, err := g.call(context.Background(), protocols()[0], md, req, resp)
		if err != nil {
			t.Fatalf("limit %d skip %d: %v", limit, skip, err)
		}
		for _, a := range resp.GetAccounts() {
			names = append(names, a.GetName())
		}
		return names, h.Get("X-Hivegate-Cache")
	}
	two, _ := ask(2, 0)
	if len(two) != 2 {
		t.Fatalf("limit 2: %q, want two accounts", two)
	}
	for _, step := range []struct {
		limit, skip uint32
		want        []string
	}{
		{1, 1, two[1:]},
		{2, 0, two},
		{1, 1, two[1:]},
	} {
		got, cache := ask(step.limit, step.skip)
		if cache != "hit" {
			t.Errorf("limit %d skip %d: cache %q, want hit (the same params as limit 2)", step.limit, step.skip, cache)
		}
		if fmt.Sprint(got) != fmt.Sprint(step.want) {
			t.Errorf("limit %d skip %d: %q, want %q", step.limit, step.skip, got, step.want)
		}
	}
}
