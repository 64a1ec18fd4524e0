package gateway_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/hivegate/hivegate/gateway"
	bridgev1 "github.com/hivegate/hivegate/gen/hive/bridge/v1"
	condv1 "github.com/hivegate/hivegate/gen/hive/condenser_api/v1"
	dbv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
	mhv1 "github.com/hivegate/hivegate/gen/hive/market_history_api/v1"
	tsv1 "github.com/hivegate/hivegate/gen/hive/transaction_status_api/v1"
	typesv1 "github.com/hivegate/hivegate/gen/hive/types/v1"
	"github.com/hivegate/hivegate/hivesim"
)

// rpcMethod returns the descriptor of the RPC with full name name
// ("hive.condenser_api.v1.CondenserApiService.GetMarketHistory").
func rpcMethod(t testing.TB, name string) protoreflect.MethodDescriptor {
	t.Helper()
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return d.(protoreflect.MethodDescriptor)
}

// TestTypedRequiredFields checks the request fields a node cannot do
// without. Each case is a complete request and a field the node needs,
// from the node's sources: left unset, the codec would send too few
// positional arguments (hived's condenser_api.cpp checks the count:
// CHECK_ARG_SIZE(3) in get_market_history) or no member hivemind can do
// without. The request without it is invalid_argument naming the field on
// every protocol, with no upstream call; the complete request reaches the
// node and is answered. The fields hived defaults when a named member is absent (fc fills
// the args struct's default) and hivemind's optional query go through
// unset.
func TestTypedRequiredFields(t *testing.T) {
	t.Parallel()
	node := hivesim.New(hivesim.Options{Seed: 1})
	g := startTypedGateway(t, node, gateway.Options{})
	post := node.Comments()[0]
	account := post.Author
	t0 := &timestamppb.Timestamp{Seconds: 1_600_000_000}
	t1 := &timestamppb.Timestamp{Seconds: 1_600_086_400}
	query := func(tag string) *typesv1.DiscussionQuery {
		q := &typesv1.DiscussionQuery{Limit: proto.Uint32(5)}
		if tag != "" {
			q.Tag = proto.String(tag)
		}
		return q
	}
	const (
		cond = "hive.condenser_api.v1.CondenserApiService."
		db   = "hive.database_api.v1.DatabaseApiService."
	)
	required := []struct {
		rpc     string
		jsonrpc string
		field   string
		req     proto.Message
	}{
		// condenser_api.cpp: CHECK_ARG_SIZE( 3 ).
		{cond + "GetMarketHistory", "condenser_api.get_market_history", "end",
			&condv1.GetMarketHistoryRequest{BucketSeconds: 3600, Start: t0, End: t1}},
		// condenser_api.cpp: FC_ASSERT( args.size() == 2 || args.size() == 3 ).
		{cond + "GetTradeHistory", "condenser_api.get_trade_history", "end",
			&condv1.GetTradeHistoryRequest{Start: t0, End: t1}},
		// condenser_api.cpp: CHECK_ARG_SIZE( 1 ).
		{cond + "GetTransactionHex", "condenser_api.get_transaction_hex", "trx",
			&condv1.GetTransactionHexRequest{Trx: &typesv1.LegacySignedTransaction{}}},
		{cond + "GetPotentialSignatures", "condenser_api.get_potential_signatures", "trx",
			&condv1.GetPotentialSignaturesRequest{Trx: &typesv1.LegacySignedTransaction{}}},
		{cond + "VerifyAuthority", "condenser_api.verify_authority", "trx",
			&condv1.VerifyAuthorityRequest{Trx: &typesv1.LegacySignedTransaction{}}},
		// condenser_api.cpp: CHECK_ARG_SIZE( 2 ).
		{cond + "GetRequiredSignatures", "condenser_api.get_required_signatures", "trx",
			&condv1.GetRequiredSignaturesRequest{Trx: &typesv1.LegacySignedTransaction{}}},
		// hivemind's condenser_api_get_discussions_by_blog_or_feed reads
		// tag as required; _by_comments start_author.
		{cond + "GetDiscussionsByBlog", "condenser_api.get_discussions_by_blog", "query",
			&condv1.GetDiscussionsByBlogRequest{Query: query(account)}},
		{cond + "GetDiscussionsByFeed", "condenser_api.get_discussions_by_feed", "query",
			&condv1.GetDiscussionsByFeedRequest{Query: query(account)}},
		{cond + "GetDiscussionsByComments", "condenser_api.get_discussions_by_comments", "query",
			&condv1.GetDiscussionsByCommentsRequest{Query: &typesv1.DiscussionQuery{StartAuthor: account, Limit: proto.Uint32(5)}}},
		// hivemind's normalize_post reads post's author and permlink.
		{"hive.bridge.v1.BridgeApiService.NormalizePost", "bridge.normalize_post", "post",
			&bridgev1.NormalizePostRequest{Post: &bridgev1.PostReference{Author: post.Author, Permlink: post.Permlink}}},
	}
	for _, tt := range required {
		md := rpcMethod(t, tt.rpc)
		fd := md.Input().Fields().ByName(protoreflect.Name(tt.field))
		if fd == nil {
			t.Fatalf("%s has no field %s", tt.rpc, tt.field)
		}
		missing := proto.Clone(tt.req)
		missing.ProtoReflect().Clear(fd)
		want := tt.field + " is required"
		for _, p := range protocols() {
			_, err := g.call(context.Background(), p, md, missing, dynamicResponse(md))
			if connect.CodeOf(err) != connect.CodeInvalidArgument {
				t.Errorf("%s without %s over %s: %v, want invalid_argument", md.Name(), tt.field, p.name, err)
				continue
			}
			var ce *connect.Error
			if errors.As(err, &ce) && ce.Message() != want {
				t.Errorf("%s without %s over %s: message %q, want %q", md.Name(), tt.field, p.name, ce.Message(), want)
			}
		}
		if n := g.backend.count(tt.jsonrpc); n != 0 {
			t.Errorf("%s without %s: %d upstream calls, want none", md.Name(), tt.field, n)
		}
		// The complete request goes through.
		if _, err := g.call(context.Background(), protocols()[0], md, tt.req, dynamicResponse(md)); err != nil {
			t.Errorf("%s complete: %v", md.Name(), err)
		}
		if n := g.backend.count(tt.jsonrpc); n != 1 {
			t.Errorf("%s complete: %d upstream calls, want 1", md.Name(), n)
		}
	}

	// Unset, these reach the node, which has a default for them.
	optional := []struct {
		rpc     string
		jsonrpc string
		req     proto.Message
	}{
		// hivemind: every argument of get_discussions_by_trending has a default.
		{cond + "GetDiscussionsByTrending", "condenser_api.get_discussions_by_trending", &condv1.GetDiscussionsByTrendingRequest{}},
		// hived: find_transaction_args' expiration is an fc::optional.
		{"hive.transaction_status_api.v1.TransactionStatusApiService.FindTransaction", "transaction_status_api.find_transaction",
			&tsv1.FindTransactionRequest{TransactionId: strings.Repeat("0", 40)}},
		// hived: a named member left out keeps the args struct's default.
		{db + "GetTransactionHex", "database_api.get_transaction_hex", &dbv1.GetTransactionHexRequest{}},
		{"hive.market_history_api.v1.MarketHistoryApiService.GetMarketHistory", "market_history_api.get_market_history",
			&mhv1.GetMarketHistoryRequest{BucketSeconds: 3600, Start: t0}},
	}
	for _, tt := range optional {
		md := rpcMethod(t, tt.rpc)
		if _, err := g.call(context.Background(), protocols()[0], md, tt.req, dynamicResponse(md)); err != nil {
			t.Errorf("%s: %v", md.Name(), err)
		}
		if n := g.backend.count(tt.jsonrpc); n != 1 {
			t.Errorf("%s: %d upstream calls, want 1", md.Name(), n)
		}
	}
}
