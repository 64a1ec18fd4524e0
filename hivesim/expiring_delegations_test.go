package hivesim_test

import (
	"cmp"
	"slices"
	"testing"
	"time"

	"github.com/hivegate/hivegate/hivesim"
)

// expirationsByDelegator is the node's expirations grouped by delegator,
// each group in hived's by_account_expiration order (expiration, id).
func expirationsByDelegator(n *hivesim.Node) map[string][]hivesim.DelegationExpiration {
	out := map[string][]hivesim.DelegationExpiration{}
	for _, x := range n.DelegationExpirations() {
		out[x.Delegator] = append(out[x.Delegator], x)
	}
	for _, rows := range out {
		slices.SortFunc(rows, func(a, b hivesim.DelegationExpiration) int {
			return cmp.Or(a.Expiration.Compare(b.Expiration), cmp.Compare(a.ID, b.ID))
		})
	}
	return out
}

func rowIDs(rows []obj) []int64 {
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i] = num(r, "id")
	}
	return out
}

// TestExpiringVestingDelegations checks condenser_api.
// get_expiring_vesting_delegations against the node's expirations and the
// two database_api methods serving the same objects: for every delegator,
// the condenser answer from the epoch is exactly its expirations in
// (expiration, id) order, the same rows as find_vesting_delegation_expirations
// and list_vesting_delegation_expirations by_account_expiration. On
// 1fa9c5b the condenser method answered [] for every account (it compared
// names with an index sorted by account id).
func TestExpiringVestingDelegations(t *testing.T) {
	t.Parallel()
	n, c, _ := testNode(t, 7)
	const epoch = "1970-01-01T00:00:00"
	groups := expirationsByDelegator(n)
	many := 0
	for name, want := range groups {
		wantIDs := make([]int64, len(want))
		for i, x := range want {
			wantIDs[i] = x.ID
		}
		if len(want) >= 8 {
			many++
		}
		got := asObjs(t, c.result(t, "condenser_api.get_expiring_vesting_delegations", []any{name, epoch}))
		if !slices.Equal(rowIDs(got), wantIDs) {
			t.Fatalf("%s: condenser ids %v, want %v", name, rowIDs(got), wantIDs)
		}
		for i, o := range got {
			if str(o, "delegator") != name || str(o, "vesting_shares") != want[i].VestingShares.String() ||
				str(o, "expiration") != want[i].Expiration.Format("2006-01-02T15:04:05") {
				t.Fatalf("%s: row %d = %v, want %+v", name, i, o, want[i])
			}
		}
		found := items(t, c.result(t, "database_api.find_vesting_delegation_expirations", obj{"account": name}), "delegations")
		if !slices.Equal(rowIDs(found), wantIDs) {
			t.Fatalf("%s: find ids %v, want %v", name, rowIDs(found), wantIDs)
		}
		listed := items(t, c.result(t, "database_api.list_vesting_delegation_expirations",
			obj{"start": []any{name, epoch, 0}, "limit": len(want), "order": "by_account_expiration"}), "delegations")
		if !slices.Equal(rowIDs(listed), wantIDs) {
			t.Fatalf("%s: list ids %v, want %v", name, rowIDs(listed), wantIDs)
		}
	}
	if many < 2 {
		t.Fatalf("%d delegators with 8 or more expirations; the paging tests need some", many)
	}
}

// TestExpiringVestingDelegationsStartAndLimit checks the start time
// (inclusive) and the limit, hived's default 100 and its bounds, and the
// answers for an empty and an unknown account.
func TestExpiringVestingDelegationsStartAndLimit(t *testing.T) {
	t.Parallel()
	n, c, _ := testNode(t, 7)
	var name string
	var rows []hivesim.DelegationExpiration
	for d, g := range expirationsByDelegator(n) {
		if len(g) > len(rows) || len(g) == len(rows) && d < name {
			name, rows = d, g
		}
	}
	if len(rows) < 8 {
		t.Fatalf("the busiest delegator, %s, has %d expirations; want 8 or more", name, len(rows))
	}
	mid := rows[len(rows)/2].Expiration
	var want []int64
	for _, x := range rows {
		if !x.Expiration.Before(mid) {
			want = append(want, x.ID)
		}
	}
	at := mid.Format("2006-01-02T15:04:05")
	cases := []struct {
		name   string
		params []any
		want   []int64
	}{
		{"from an expiration, inclusive", []any{name, at}, want},
		{"limit cuts the page", []any{name, at, 2}, want[:2]},
		{"a second later skips the expiration", []any{name, mid.Add(time.Second).Format("2006-01-02T15:04:05")}, afterTime(rows, mid)},
		{"empty account", []any{"", "1970-01-01T00:00:00"}, []int64{}},
	}
	for _, tt := range cases {
		got := rowIDs(asObjs(t, c.result(t, "condenser_api.get_expiring_vesting_delegations", tt.params)))
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: ids %v, want %v", tt.name, got, tt.want)
		}
	}
	errs := []struct {
		params []any
		msg    string
	}{
		{[]any{"nobody-here", "1970-01-01T00:00:00"}, "Assert Exception:delegator != nullptr: Given account does not exist."},
		{[]any{name, "1970-01-01T00:00:00", 0}, "Assert Exception:0 < args.limit && args.limit <= DATABASE_API_SINGLE_QUERY_LIMIT: limit not set or too big"},
		{[]any{name, "1970-01-01T00:00:00", 1001}, "Assert Exception:0 < args.limit && args.limit <= DATABASE_API_SINGLE_QUERY_LIMIT: limit not set or too big"},
		{[]any{name}, "Assert Exception:args.size() == 2 || args.size() == 3: Expected 2-3 arguments, was 1"},
	}
	for _, e := range errs {
		c.expectError(t, "condenser_api.get_expiring_vesting_delegations", e.params, -32003, e.msg)
	}
}

func afterTime(rows []hivesim.DelegationExpiration, t time.Time) []int64 {
	var out []int64
	for _, x := range rows {
		if x.Expiration.After(t) {
			out = append(out, x.ID)
		}
	}
	return out
}

// TestReturningDelegationsDeterministic checks the generated expirations:
// the same seed gives the same objects, the busiest delegators have a
// series of them within hived's 5-day return period after the head block,
// with ties on expiration (reductions in one block).
func TestReturningDelegationsDeterministic(t *testing.T) {
	t.Parallel()
	a, c, clk := testNode(t, 11)
	b := hivesim.New(hivesim.Options{Seed: 11, Now: clk.Now})
	if !slices.Equal(a.DelegationExpirations(), b.DelegationExpirations()) {
		t.Fatal("one seed, two sets of expirations")
	}
	head, err := time.Parse("2006-01-02T15:04:05", str(c.result(t, "condenser_api.get_dynamic_global_properties", []any{}).(obj), "time"))
	if err != nil {
		t.Fatal(err)
	}
	delegates := map[string]bool{}
	for _, d := range a.VestingDelegations() {
		delegates[d.Delegator] = true
	}
	ties := 0
	for name, rows := range expirationsByDelegator(a) {
		if len(rows) < 8 {
			continue
		}
		if !delegates[name] {
			t.Errorf("%s has %d expirations and no delegation", name, len(rows))
		}
		for i, x := range rows {
			if !x.Expiration.After(head) || x.Expiration.After(head.Add(5*24*time.Hour)) {
				t.Errorf("%s: expiration %v outside (%v, +5 days]", name, x.Expiration, head)
			}
			if i > 0 && x.Expiration.Equal(rows[i-1].Expiration) {
				ties++
			}
		}
	}
	if ties == 0 {
		t.Error("no two expirations of one delegator share an expiration")
	}
}
