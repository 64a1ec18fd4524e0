package hivesim_test

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/hivesim"
)

const epoch = "1970-01-01T00:00:00"

// pagingCase describes one (method, order): the minimal start, how to build the next
// cursor from the last row, and the expected identities in index order (computed here,
// independently of the implementation, from the node's data views).
type pagingCase struct {
	method, order string // order "" = the method takes none (list_owner_histories)
	key           string // result member holding the rows
	start         any
	extra         obj
	ident         func(obj) string
	next          func(params, last obj)
	want          []string
}

func (tc pagingCase) name() string {
	return strings.TrimPrefix(tc.method, "database_api.") + "/" + tc.order
}

func byID(key string) func(obj) string { return func(o obj) string { return ids(o, key) } }

// cursor sets "start" to the listed members of the last row.
func cursor(keys ...string) func(params, last obj) {
	return func(p, last obj) {
		s := make([]any, len(keys))
		for i, k := range keys {
			s[i] = last[k]
		}
		p["start"] = s
	}
}

// mapWant sorts a copy of rows with cmpFn and maps them to identities.
func mapWant[T any](rows []T, cmpFn func(a, b T) int, ident func(T) string) []string {
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, cmpFn)
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = ident(r)
	}
	return out
}

func u128Cmp(a, b hivesim.U128) int { return cmp.Or(cmp.Compare(a.Hi, b.Hi), cmp.Compare(a.Lo, b.Lo)) }

// priceCmp orders prices like hived's operator<: symbols first, then base/quote.
func priceCmp(a, b hivesim.Price) int {
	if c := cmp.Or(cmp.Compare(a.Base.Symbol, b.Base.Symbol), cmp.Compare(a.Quote.Symbol, b.Quote.Symbol)); c != 0 {
		return c
	}
	x := new(big.Int).Mul(big.NewInt(a.Base.Amount), big.NewInt(b.Quote.Amount))
	y := new(big.Int).Mul(big.NewInt(b.Base.Amount), big.NewInt(a.Quote.Amount))
	return x.Cmp(y)
}

func sid(v int64) string { return fmt.Sprint(v) }

func pagingCases(n *hivesim.Node) []pagingCase {
	accts := n.Accounts()
	acctID := map[string]int64{"": -1}
	for _, a := range accts {
		acctID[a.Name] = a.ID
	}
	wits := n.Witnesses()
	comments := n.Comments()
	commentID := map[string]int64{}
	for _, c := range comments {
		commentID[c.Author+"/"+c.Permlink] = c.ID
	}
	var cases []pagingCase
	add := func(c pagingCase) { cases = append(cases, c) }

	// Accounts.
	acctName := func(a hivesim.Account) string { return a.Name }
	add(pagingCase{method: "database_api.list_accounts", order: "by_name", key: "accounts", start: "",
		ident: byID("name"), next: func(p, l obj) { p["start"] = l["name"] },
		want: mapWant(accts, func(a, b hivesim.Account) int { return strings.Compare(a.Name, b.Name) }, acctName)})
	add(pagingCase{method: "database_api.list_accounts", order: "by_proxy", key: "accounts", start: []any{"", ""},
		ident: byID("name"), next: cursor("proxy", "name"),
		want: mapWant(accts, func(a, b hivesim.Account) int {
			return cmp.Or(cmp.Compare(acctID[a.Proxy], acctID[b.Proxy]), strings.Compare(a.Name, b.Name))
		}, acctName)})
	add(pagingCase{method: "database_api.list_accounts", order: "by_next_vesting_withdrawal", key: "accounts",
		start: []any{epoch, ""}, ident: byID("name"), next: cursor("next_vesting_withdrawal", "name"),
		want: mapWant(accts, func(a, b hivesim.Account) int {
			return cmp.Or(a.NextVestingWithdrawal.Compare(b.NextVestingWithdrawal), strings.Compare(a.Name, b.Name))
		}, acctName)})

	// Witnesses and witness votes.
	owner := func(w hivesim.Witness) string { return w.Owner }
	add(pagingCase{method: "database_api.list_witnesses", order: "by_name", key: "witnesses", start: nil,
		ident: byID("owner"), next: func(p, l obj) { p["start"] = l["owner"] },
		want: mapWant(wits, func(a, b hivesim.Witness) int { return strings.Compare(a.Owner, b.Owner) }, owner)})
	add(pagingCase{method: "database_api.list_witnesses", order: "by_vote_name", key: "witnesses",
		start: []any{int64(math.MaxInt64), ""}, ident: byID("owner"), next: cursor("votes", "owner"),
		want: mapWant(wits, func(a, b hivesim.Witness) int {
			return cmp.Or(cmp.Compare(b.Votes, a.Votes), strings.Compare(a.Owner, b.Owner))
		}, owner)})
	add(pagingCase{method: "database_api.list_witnesses", order: "by_schedule_time", key: "witnesses",
		start: []any{"0", wits[0].Owner}, ident: byID("owner"), next: cursor("virtual_scheduled_time", "owner"),
		want: mapWant(wits, func(a, b hivesim.Witness) int {
			return cmp.Or(u128Cmp(a.VirtualScheduledTime, b.VirtualScheduledTime), cmp.Compare(a.ID, b.ID))
		}, owner)})
	wv := n.WitnessVotes()
	wvID := func(v hivesim.WitnessVote) string { return v.Account + "|" + v.Witness }
	add(pagingCase{method: "database_api.list_witness_votes", order: "by_account_witness", key: "votes",
		start: []any{"", ""}, ident: func(o obj) string { return ids(o, "account", "witness") }, next: cursor("account", "witness"),
		want: mapWant(wv, func(a, b hivesim.WitnessVote) int {
			return cmp.Or(strings.Compare(a.Account, b.Account), strings.Compare(a.Witness, b.Witness))
		}, wvID)})
	add(pagingCase{method: "database_api.list_witness_votes", order: "by_witness_account", key: "votes",
		start: []any{"", ""}, ident: func(o obj) string { return ids(o, "account", "witness") }, next: cursor("witness", "account"),
		want: mapWant(wv, func(a, b hivesim.WitnessVote) int {
			return cmp.Or(strings.Compare(a.Witness, b.Witness), strings.Compare(a.Account, b.Account))
		}, wvID)})

	// Account requests.
	add(pagingCase{method: "database_api.list_owner_histories", key: "owner_auths", start: []any{"", epoch},
		ident: byID("id"), next: cursor("account", "last_valid_time"),
		want: mapWant(n.OwnerHistories(), func(a, b hivesim.OwnerHistory) int {
			return cmp.Or(strings.Compare(a.Account, b.Account), a.LastValidTime.Compare(b.LastValidTime), cmp.Compare(a.ID, b.ID))
		}, func(x hivesim.OwnerHistory) string { return sid(x.ID) })})
	rr := n.RecoveryRequests()
	rrID := func(x hivesim.RecoveryRequest) string { return x.AccountToRecover }
	add(pagingCase{method: "database_api.list_account_recovery_requests", order: "by_account", key: "requests", start: "",
		ident: byID("account_to_recover"), next: func(p, l obj) { p["start"] = l["account_to_recover"] },
		want: mapWant(rr, func(a, b hivesim.RecoveryRequest) int { return strings.Compare(a.AccountToRecover, b.AccountToRecover) }, rrID)})
	add(pagingCase{method: "database_api.list_account_recovery_requests", order: "by_expiration", key: "requests",
		start: []any{epoch, ""}, ident: byID("account_to_recover"), next: cursor("expires", "account_to_recover"),
		want: mapWant(rr, func(a, b hivesim.RecoveryRequest) int {
			return cmp.Or(a.Expires.Compare(b.Expires), strings.Compare(a.AccountToRecover, b.AccountToRecover))
		}, rrID)})
	cr := n.ChangeRecoveryRequests()
	crID := func(x hivesim.ChangeRecoveryRequest) string { return x.AccountToRecover }
	add(pagingCase{method: "database_api.list_change_recovery_account_requests", order: "by_account", key: "requests", start: "",
		ident: byID("account_to_recover"), next: func(p, l obj) { p["start"] = l["account_to_recover"] },
		want: mapWant(cr, func(a, b hivesim.ChangeRecoveryRequest) int {
			return strings.Compare(a.AccountToRecover, b.AccountToRecover)
		}, crID)})
	add(pagingCase{method: "database_api.list_change_recovery_account_requests", order: "by_effective_date", key: "requests",
		start: []any{epoch, ""}, ident: byID("account_to_recover"), next: cursor("effective_on", "account_to_recover"),
		want: mapWant(cr, func(a, b hivesim.ChangeRecoveryRequest) int {
			return cmp.Or(a.EffectiveOn.Compare(b.EffectiveOn), strings.Compare(a.AccountToRecover, b.AccountToRecover))
		}, crID)})
	dv := n.DeclineVotingRightsRequests()
	dvID := func(x hivesim.DeclineVotingRightsRequest) string { return x.Account }
	add(pagingCase{method: "database_api.list_decline_voting_rights_requests", order: "by_account", key: "requests", start: "",
		ident: byID("account"), next: func(p, l obj) { p["start"] = l["account"] },
		want: mapWant(dv, func(a, b hivesim.DeclineVotingRightsRequest) int { return strings.Compare(a.Account, b.Account) }, dvID)})
	add(pagingCase{method: "database_api.list_decline_voting_rights_requests", order: "by_effective_date", key: "requests",
		start: []any{epoch, ""}, ident: byID("account"), next: cursor("effective_date", "account"),
		want: mapWant(dv, func(a, b hivesim.DeclineVotingRightsRequest) int {
			return cmp.Or(a.EffectiveDate.Compare(b.EffectiveDate), strings.Compare(a.Account, b.Account))
		}, dvID)})

	cases = append(cases, financeCases(n, acctID)...)
	cases = append(cases, dhfCases(n)...)
	cases = append(cases, socialCases(n, acctID, commentID)...)
	return cases
}

// pageAll pages through a list with limit rows per call, re-sending the last row as the
// next start, and returns the identities in the order received. Every page after the
// first must begin with the cursor row (the start is inclusive).
func pageAll(t *testing.T, c *client, tc pagingCase, limit int) []string {
	t.Helper()
	params := obj{"start": tc.start, "limit": limit}
	if tc.order != "" {
		params["order"] = tc.order
	}
	maps.Copy(params, tc.extra)
	var got []string
	seen := map[string]bool{}
	for pageNo := 0; ; pageNo++ {
		if pageNo > 10_000 {
			t.Fatal("paging does not end")
		}
		rows := items(t, c.result(t, tc.method, params), tc.key)
		if pageNo > 0 {
			if len(rows) == 0 || tc.ident(rows[0]) != got[len(got)-1] {
				t.Fatalf("page %d does not start with the cursor row %s", pageNo, got[len(got)-1])
			}
		}
		fresh := rows
		if pageNo > 0 {
			fresh = rows[1:]
		}
		for _, r := range fresh {
			id := tc.ident(r)
			if seen[id] {
				t.Fatalf("row %s returned twice", id)
			}
			seen[id] = true
			got = append(got, id)
		}
		if len(fresh) == 0 || len(rows) < limit {
			return got
		}
		tc.next(params, rows[len(rows)-1])
	}
}

func TestListPaging(t *testing.T) {
	t.Parallel()
	n, c, _ := testNode(t, 11)
	for _, tc := range pagingCases(n) {
		t.Run(tc.name(), func(t *testing.T) {
			t.Parallel()
			if len(tc.want) < 3 {
				t.Fatalf("generated data too small: %d rows", len(tc.want))
			}
			// Limit 1 cannot page with an inclusive start: each page would hold only the cursor.
			limits := []int{7, 1000}
			if len(tc.want) <= 250 {
				limits = append(limits, 2)
			}
			for _, limit := range limits {
				got := pageAll(t, c, tc, limit)
				if !slices.Equal(got, tc.want) {
					i := 0
					for i < len(got) && i < len(tc.want) && got[i] == tc.want[i] {
						i++
					}
					t.Fatalf("limit %d: got %d rows, want %d; first difference at %d:\n got  %v\n want %v",
						limit, len(got), len(tc.want), i, got[i:min(len(got), i+5)], tc.want[i:min(len(tc.want), i+5)])
				}
			}
		})
	}
}

// TestListLimits checks limit 0 and 1001 on every list method and order.
func TestListLimits(t *testing.T) {
	t.Parallel()
	n, c, _ := testNode(t, 12)
	type lc struct {
		method, order string
		start         any
	}
	var cases []lc
	for _, pc := range pagingCases(n) {
		cases = append(cases, lc{pc.method, pc.order, pc.start})
	}
	cases = append(cases,
		lc{"database_api.list_smt_contributions", "by_symbol_contributor", []any{}},
		lc{"database_api.list_smt_tokens", "by_symbol", obj{}},
		lc{"database_api.list_smt_token_emissions", "by_symbol_time", []any{}})
	for _, tc := range cases {
		t.Run(strings.TrimPrefix(tc.method, "database_api.")+"/"+tc.order, func(t *testing.T) {
			t.Parallel()
			for _, limit := range []int{0, 1001} {
				params := obj{"start": tc.start, "limit": limit}
				if tc.order != "" {
					params["order"] = tc.order
				}
				switch tc.method {
				case "database_api.list_votes":
					c.expectError(t, tc.method, params, -32602, fmt.Sprintf("Assert Exception:limit = %d outside valid range [1:1000]", limit))
				case "database_api.list_comments":
					r := c.expectError(t, tc.method, params, -32602, "Invalid parameters")
					if want := fmt.Sprintf(`"limit = %d outside valid range [1:1000]"`, limit); string(r.Error.Data) != want {
						t.Fatalf("data = %s, want %s", r.Error.Data, want)
					}
				default:
					r := c.expectError(t, tc.method, params, -32003,
						"Assert Exception:0 < args.limit && args.limit <= DATABASE_API_SINGLE_QUERY_LIMIT: limit not set or too big")
					d := decode(t, r.Error.Data)
					if field(t, d, "name") != "assert_exception" || len(field(t, d, "stack").([]any)) == 0 {
						t.Fatalf("error data = %s", r.Error.Data)
					}
				}
			}
		})
	}
}

func TestListOrders(t *testing.T) {
	t.Parallel()
	n, c, _ := testNode(t, 13)
	wits := n.Witnesses()
	cases := []struct {
		name    string
		method  string
		params  obj
		code    int
		message string
	}{
		{"unsupported order", "database_api.list_accounts", obj{"start": "", "limit": 5, "order": "by_price"},
			-32003, "Assert Exception:false: Unknown or unsupported sort order 'by_price'"},
		{"missing order", "database_api.list_witnesses", obj{"start": "", "limit": 5},
			-32003, "Assert Exception:false: Unknown or unsupported sort order 'not_set'"},
		{"order number out of range", "database_api.list_accounts", obj{"start": "", "limit": 5, "order": 99},
			-32003, "Assert Exception:false: Unknown or unsupported sort order '99'"},
		{"bad enum name", "database_api.list_accounts", obj{"start": "", "limit": 5, "order": "by_nam"},
			-32000, "Bad Cast:invalid name 'by_nam' in enum 'hive::plugins::database_api::sort_order_type'"},
		{"bad direction", "database_api.list_proposals", obj{"start": []any{}, "limit": 5, "order": "by_creator", "order_direction": "up"},
			-32000, "Bad Cast:invalid name 'up' in enum 'hive::plugins::database_api::order_direction_type'"},
		{"non-array pair", "database_api.list_witness_votes", obj{"start": "alice", "limit": 5, "order": "by_account_witness"},
			-32000, "Bad Cast:Invalid cast from string_type to Array"},
		{"name too long", "database_api.list_accounts", obj{"start": "twenty_letters_wordd", "limit": 5, "order": "by_name"},
			-32003, "Assert Exception:in_len <= sizeof(data): Input too large: `twenty_letters_wordd` (20) for fixed size string: (16)"},
		{"three values required", "database_api.list_escrows", obj{"start": []any{true, epoch}, "limit": 5, "order": "by_ratification_deadline"},
			-32003, "Assert Exception:key.size() == 3: by_ratification_deadline start requires 3 values. (bool, time_point_sec, escrow_id_type)"},
		{"unknown proxy", "database_api.list_accounts", obj{"start": []any{"nobody-here", ""}, "limit": 5, "order": "by_proxy"},
			-32003, "Assert Exception:proxy != nullptr: Given proxy account does not exist."},
		{"unknown delegator", "database_api.list_vesting_delegations", obj{"start": []any{"nobody-here", ""}, "limit": 5, "order": "by_delegation"},
			-32003, "Assert Exception:delegator != nullptr: Given account does not exist."},
		{"negative proposal id", "database_api.list_proposal_votes", obj{"start": []any{-1}, "limit": 5, "order": "by_proposal_voter"},
			-32003, "Assert Exception:*obj >= 0: The proposal id can't be negative"},
		{"schedule needs a witness", "database_api.list_witnesses", obj{"start": []any{"0", "nobody-here"}, "limit": 5, "order": "by_schedule_time"},
			-32000, "unknown key:unknown key: "},
		{"bad limit type", "database_api.list_accounts", obj{"start": "", "limit": "ten", "order": "by_name"},
			-32000, "Parse Error:Couldn't parse uint64_t"},
		{"hivemind missing order", "database_api.list_votes", obj{"start": []any{"a", "b", ""}, "limit": 5},
			-32602, "Assert Exception:missing a required argument: 'order'"},
		{"hivemind unknown order", "database_api.list_votes", obj{"start": []any{"a", "b", ""}, "limit": 5, "order": "by_author"},
			-32602, "Assert Exception:Unsupported order, valid orders: by_comment_voter, by_voter_comment"},
		{"hivemind start size", "database_api.list_votes", obj{"start": []any{"a", "b"}, "limit": 5, "order": "by_comment_voter"},
			-32602, "Assert Exception:Expecting 3 arguments in 'start' array: post author and permlink, optional page start voter"},
		{"hivemind missing post", "database_api.list_votes", obj{"start": []any{wits[0].Owner, "no-such-post", ""}, "limit": 5, "order": "by_comment_voter"},
			-32602, "Assert Exception:Post " + wits[0].Owner + "/no-such-post does not exist"},
		{"smt order", "database_api.list_smt_tokens", obj{"start": obj{}, "limit": 5, "order": "by_name"},
			-32003, "Assert Exception:false: Unknown or unsupported sort order 'by_name'"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c.expectError(t, tc.method, tc.params, tc.code, tc.message)
		})
	}
	// Orders may be given by number (also as a numeric string), as fc enums allow.
	byNumber := items(t, c.result(t, "database_api.list_witnesses", obj{"start": []any{"9223372036854775807", ""}, "limit": 3, "order": "6"}), "witnesses")
	byName := items(t, c.result(t, "database_api.list_witnesses", obj{"start": []any{int64(math.MaxInt64), ""}, "limit": 3, "order": "by_vote_name"}), "witnesses")
	if ids(byNumber[0], "owner") != ids(byName[0], "owner") || len(byNumber) != 3 {
		t.Fatalf("order \"6\" = %v, by_vote_name = %v", byNumber, byName)
	}
}

// TestVoteNameOrder checks by_vote_name directly on a single page: votes descending,
// names ascending among equal votes, and the SMT lists stay empty.
func TestVoteNameOrder(t *testing.T) {
	t.Parallel()
	_, c, _ := testNode(t, 14)
	rows := items(t, c.result(t, "database_api.list_witnesses",
		obj{"start": []any{int64(math.MaxInt64), ""}, "limit": 1000, "order": "by_vote_name"}), "witnesses")
	ties := 0
	for i := 1; i < len(rows); i++ {
		a, b := rows[i-1], rows[i]
		va, vb := num(a, "votes"), num(b, "votes")
		if va < vb || (va == vb && str(a, "owner") >= str(b, "owner")) {
			t.Fatalf("row %d (%s %d) before row %d (%s %d)", i-1, str(a, "owner"), va, i, str(b, "owner"), vb)
		}
		if va == vb {
			ties++
		}
	}
	if ties == 0 {
		t.Fatal("no equal votes in the data: the tie order is untested")
	}
	smt := c.result(t, "database_api.list_smt_token_emissions", obj{"start": []any{}, "limit": 10, "order": "by_symbol_time"})
	if len(items(t, smt, "token_emissions")) != 0 {
		t.Fatalf("smt emissions = %v", smt)
	}
	// Proposals in descending direction are the ascending list reversed.
	asc := items(t, c.result(t, "database_api.list_proposals", obj{"start": []any{}, "limit": 1000, "order": "by_end_date"}), "proposals")
	desc := items(t, c.result(t, "database_api.list_proposals",
		obj{"start": []any{}, "limit": 1000, "order": "by_end_date", "order_direction": "descending"}), "proposals")
	if len(asc) != len(desc) || len(asc) == 0 {
		t.Fatalf("asc %d rows, desc %d rows", len(asc), len(desc))
	}
	for i := range asc {
		if ids(asc[i], "id") != ids(desc[len(desc)-1-i], "id") {
			t.Fatalf("descending order is not the reverse of ascending at %d", i)
		}
	}
	// A proposal's status is read at the head block's time.
	now, err := time.Parse("2006-01-02T15:04:05", field(t, c.result(t, "database_api.get_dynamic_global_properties", obj{}), "time").(string))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range asc {
		start, _ := time.Parse("2006-01-02T15:04:05", str(p, "start_date"))
		end, _ := time.Parse("2006-01-02T15:04:05", str(p, "end_date"))
		want := "active"
		if now.Before(start) {
			want = "inactive"
		} else if now.After(end) {
			want = "expired"
		}
		if str(p, "status") != want {
			t.Fatalf("proposal %s status %s, want %s", ids(p, "id"), str(p, "status"), want)
		}
	}
}
