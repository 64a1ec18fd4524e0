package server

import (
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	blockv1 "github.com/hivegate/hivegate/gen/hive/block_api/v1"
	condv1 "github.com/hivegate/hivegate/gen/hive/condenser_api/v1"
	dbv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
	"github.com/hivegate/hivegate/server/transcode"
)

// TestFinishPage cuts a node's answer to the client's page and sets
// next_start (issue 28 item 1): the last page has none; an inclusive start
// gets a skip count of the items under the cursor already returned, ties
// included; the next call's skip items are dropped.
func TestFinishPage(t *testing.T) {
	t.Parallel()
	methods := plannedMethods(t)
	epoch := &timestamppb.Timestamp{}
	t2 := timestamppb.New(time.Date(2020, 1, 1, 0, 0, 2, 0, time.UTC))
	trade := func(sec int) string {
		return `{"date":"2020-01-01T00:00:0` + string(rune('0'+sec)) + `","current_pays":"1.000 HBD","open_pays":"2.000 HIVE"}`
	}
	tests := []struct {
		name   string
		method string
		req    proto.Message
		result string
		// items is how many items the client gets; next is next_start
		// in hived JSON ("" for unset) and skip its skip count.
		items int
		next  string
		skip  uint64
	}{
		{"a short page is the last", "database_api.list_accounts",
			&dbv1.ListAccountsRequest{Limit: proto.Uint32(1000), Start: &dbv1.ListAccountsStart{Start: &dbv1.ListAccountsStart_ByName_{ByName: &dbv1.ListAccountsStart_ByName{Account: "ziusxa707"}}}},
			`{"accounts":[{"name":"ziusxa707"}]}`, 1, "", 0},
		{"a full page has a cursor with skip 1", "database_api.list_accounts",
			&dbv1.ListAccountsRequest{Limit: proto.Uint32(2), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME},
			`{"accounts":[{"name":"a"},{"name":"b"}]}`, 2, `"b"`, 1},
		{"the skip items are dropped", "database_api.list_accounts",
			&dbv1.ListAccountsRequest{Limit: proto.Uint32(2), Start: &dbv1.ListAccountsStart{Start: &dbv1.ListAccountsStart_ByName_{ByName: &dbv1.ListAccountsStart_ByName{Account: "b"}}, Skip: proto.Uint32(1)}},
			`{"accounts":[{"name":"b"},{"name":"c"},{"name":"d"}]}`, 2, `"d"`, 1},
		{"the last page after a skip", "database_api.list_accounts",
			&dbv1.ListAccountsRequest{Limit: proto.Uint32(2), Start: &dbv1.ListAccountsStart{Start: &dbv1.ListAccountsStart_ByName_{ByName: &dbv1.ListAccountsStart_ByName{Account: "b"}}, Skip: proto.Uint32(1)}},
			`{"accounts":[{"name":"b"},{"name":"c"}]}`, 1, "", 0},
		{"trades in one second: skip counts them", "condenser_api.get_trade_history",
			&condv1.GetTradeHistoryRequest{Start: epoch, End: t2, Limit: proto.Uint32(3)},
			`[` + trade(1) + `,` + trade(2) + `,` + trade(2) + `]`, 3, `{"start":"2020-01-01T00:00:02"}`, 2},
		{"trades: the tie's skip carries over", "condenser_api.get_trade_history",
			&condv1.GetTradeHistoryRequest{Start: t2, End: t2, Limit: proto.Uint32(1), Skip: proto.Uint32(2)},
			`[` + trade(2) + `,` + trade(2) + `,` + trade(2) + `]`, 1, `{"start":"2020-01-01T00:00:02"}`, 3},
		{"proposals: the id the node ignores is not counted", "database_api.list_proposals",
			&dbv1.ListProposalsRequest{Limit: proto.Uint32(2), Order: dbv1.ListProposalsOrder_LIST_PROPOSALS_ORDER_BY_CREATOR},
			`{"proposals":[{"id":1,"proposal_id":1,"creator":"a"},{"id":2,"proposal_id":2,"creator":"a"}]}`, 2, `["a",2]`, 2},
		{"exclusive start: no skip", "condenser_api.get_trending_tags",
			&condv1.GetTrendingTagsRequest{Limit: proto.Uint32(2)},
			`[{"name":"a"},{"name":"b"}]`, 2, `{"start_tag":"b"}`, 0},
		{"exclusive start: a short page is the last", "condenser_api.get_trending_tags",
			&condv1.GetTrendingTagsRequest{Limit: proto.Uint32(3)},
			`[{"name":"a"},{"name":"b"}]`, 2, "", 0},
		{"block range: the next block", "block_api.get_block_range",
			&blockv1.GetBlockRangeRequest{StartingBlockNum: 10, Count: proto.Uint32(2)},
			`{"blocks":[{"previous":"00"},{"previous":"01"}]}`, 2, `{"starting_block_num":12}`, 0},
		{"block range: the head", "block_api.get_block_range",
			&blockv1.GetBlockRangeRequest{StartingBlockNum: 10, Count: proto.Uint32(3)},
			`{"blocks":[{"previous":"00"},{"previous":"01"}]}`, 2, "", 0},
		{"history near entry 0 ends there", "condenser_api.get_account_history",
			&condv1.GetAccountHistoryRequest{Account: "a", Start: proto.Int64(2), Limit: proto.Uint32(10)},
			`[[0,{"block":1}],[1,{"block":2}],[2,{"block":3}]]`, 3, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tm := methods[tt.method]
			req := tt.req.ProtoReflect()
			_, order, err := tm.prepare(req)
			if err != nil {
				t.Fatal(err)
			}
			pg, err := tm.page(req)
			if err != nil {
				t.Fatal(err)
			}
			m := tm.Response.New()
			if _, err := transcode.Unmarshal([]byte(tt.result), m.Interface()); err != nil {
				t.Fatal(err)
			}
			tm.finishPage(m, pg, order, req)
			if n := m.Get(tm.items).List().Len(); n != tt.items {
				t.Errorf("%d items, want %d", n, tt.items)
			}
			if tt.next == "" {
				if m.Has(tm.next) {
					t.Errorf("next_start set: %v", m.Get(tm.next).Message().Interface())
				}
				return
			}
			if !m.Has(tm.next) {
				t.Fatalf("next_start unset")
			}
			next := m.Get(tm.next).Message()
			got, err := transcode.Marshal(next.Interface())
			if err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, got, []byte(tt.next)) {
				t.Errorf("next_start = %s, want %s", got, tt.next)
			}
			var skip uint64
			if tm.skipNext != nil && next.Has(tm.skipNext) {
				skip = next.Get(tm.skipNext).Uint()
			}
			if skip != tt.skip {
				t.Errorf("skip = %d, want %d", skip, tt.skip)
			}
		})
	}
}
