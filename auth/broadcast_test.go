package auth_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// authorizedUser returns a demo user whose posting authority does or does
// not list demo.app's account yet, as want says.
func authorizedUser(t *testing.T, e *env, want bool) string {
	t.Helper()
	for _, u := range []string{"alice", "bob", "carol", "dave", "eve", "frank", "grace", "heidi", "ivan", "judy"} {
		if e.authorizes(u) == want {
			return u
		}
	}
	t.Fatalf("no demo user with authorizes=%v", want)
	return ""
}

// TestBroadcastRefusals: every refusal of /api/broadcast, none of which
// reaches the node.
func TestBroadcastRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "limits:\n  blacklist_accounts: [mallory]\n")
	user := authorizedUser(t, e, false)
	posting := e.tokens(user, "login,posting")["access_token"].(string)
	loginOnly := e.tokens(user, "login")["access_token"].(string)
	e.post("bob", "p")
	vote := func(voter, author string) string {
		return `[["vote",{"voter":"` + voter + `","author":"` + author + `","permlink":"p","weight":10000}]]`
	}
	before := e.node.Calls("condenser_api.broadcast_transaction_synchronous")

	// demo.app's account is not in the user's posting authority yet.
	e.broadcast(posting, vote(user, "bob")).oauthErr(t, http.StatusUnauthorized, "unauthorized_client", "has not authorized app @demo.app (posting)")
	if got := e.node.Calls("condenser_api.broadcast_transaction_synchronous"); got != before {
		t.Fatalf("a broadcast without the posting authority reached the node (%d calls)", got-before)
	}
	e.grantAuthority(user) // broadcasts the authority update itself
	before = e.node.Calls("condenser_api.broadcast_transaction_synchronous")

	testCases := []struct {
		name, token, ops string
		status           int
		code, desc       string
	}{
		{"no token", "", vote(user, "bob"), 401, "invalid_token", "no token"},
		{"garbage token", "not.a.jwt", vote(user, "bob"), 401, "invalid_token", "malformed"},
		{"login scope", loginOnly, vote(user, "bob"), 401, "invalid_scope", "vote"},
		{"an operation outside posting", posting, `[["transfer",{"from":"` + user + `","to":"bob","amount":"1.000 HIVE","memo":""}]]`, 401, "invalid_scope", "transfer"},
		{"an unknown operation", posting, `[["fly",{}]]`, 401, "invalid_scope", "fly"},
		{"for another voter", posting, vote("bob", "bob"), 401, "unauthorized_client", "only for the account @" + user},
		{"one of two for another account", posting, `[` + vote(user, "bob")[1:len(vote(user, "bob"))-1] + `,["comment",{"parent_author":"","parent_permlink":"x","author":"bob","permlink":"q","title":"t","body":"b","json_metadata":""}]]`,
			401, "unauthorized_client", "only for the account"},
		{"custom_json signed by two", posting, `[["custom_json",{"required_auths":[],"required_posting_auths":["` + user + `","bob"],"id":"follow","json":"[]"}]]`, 401, "unauthorized_client", "only for the account"},
		{"custom_json with active auths", posting, `[["custom_json",{"required_auths":["` + user + `"],"required_posting_auths":["` + user + `"],"id":"x","json":"{}"}]]`, 401, "unauthorized_client", "only for the account"},
		{"account_update2 beyond posting metadata", posting, `[["account_update2",{"account":"` + user + `","json_metadata":"{}","posting_json_metadata":"","extensions":[]}]]`, 401, "unauthorized_client", "posting_json_metadata only"},
		{"malformed operations", posting, `{"vote":1}`, 400, "invalid_request", "operations"},
		{"a bad field", posting, `[["vote",{"voter":"` + user + `","author":"bob","permlink":"p","weight":99999}]]`, 400, "invalid_request", "weight"},
		{"no operations", posting, `[]`, 400, "invalid_request", "no operations"},
	}
	for _, tc := range testCases {
		e.broadcast(tc.token, tc.ops).oauthErr(t, tc.status, tc.code, tc.desc)
	}
	if got := e.node.Calls("condenser_api.broadcast_transaction_synchronous"); got != before {
		t.Fatalf("%d refused broadcasts reached the node", got-before)
	}
	r := e.broadcast("", vote(user, "bob"))
	if !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("no WWW-Authenticate: %v", r.header)
	}

	// limits.blacklist_accounts screens the service's broadcasts too.
	e.broadcast(posting, `[["vote",{"voter":"`+user+`","author":"mallory","permlink":"m","weight":100}]]`).
		oauthErr(t, http.StatusForbidden, "server_error", "Blacklisted account: mallory")
	if got := e.node.Calls("condenser_api.broadcast_transaction_synchronous"); got != before {
		t.Fatal("a blacklisted broadcast reached the node")
	}

	// The node's refusal comes back as HiveSigner shows it, and the
	// broadcast was made once, though retries are configured.
	e.broadcast(posting, `[["vote",{"voter":"`+user+`","author":"bob","permlink":"no-such-post","weight":100}]]`).
		oauthErr(t, http.StatusInternalServerError, "server_error", "Could not find comment bob/no-such-post")
	if got := e.node.Calls("condenser_api.broadcast_transaction_synchronous"); got != before+1 {
		t.Errorf("%d node calls for one refused broadcast, want 1 (never retried)", got-before)
	}
	// What the user may do works: the right voter, a follow, a profile update, a claim.
	for _, ops := range []string{
		vote(user, "bob"),
		`[["custom_json",{"required_posting_auths":["` + user + `"],"id":"follow","json":"[\"follow\",{\"follower\":\"` + user + `\",\"following\":\"bob\",\"what\":[\"blog\"]}]"}]]`,
		`[["account_update2",{"account":"` + user + `","json_metadata":"","posting_json_metadata":"{\"profile\":{\"name\":\"Me\",\"version\":2}}","extensions":[]}]]`,
		`[["claim_reward_balance",{"account":"` + user + `","reward_hive":"0.000 HIVE","reward_hbd":"0.000 HBD","reward_vests":"0.000001 VESTS"}]]`,
	} {
		if r := e.broadcast("Bearer "+posting, ops); r.status != http.StatusOK {
			t.Errorf("%s: HTTP %d %s", ops, r.status, r.body)
		}
	}
	if md := e.account(user)["posting_json_metadata"]; md != `{"profile":{"name":"Me","version":2}}` {
		t.Errorf("posting_json_metadata %v", md)
	}
	// /api/me reads the profile HiveSigner's way, through the cache (up
	// to the route's TTL, 3 s here, old).
	profileName := func() any {
		me := e.do("GET", "/api/me", map[string]string{"Authorization": posting}, nil).json(t)
		p, _ := me["user_metadata"].(map[string]any)["profile"].(map[string]any)
		return p["name"]
	}
	deadline := time.Now().Add(10 * time.Second)
	for profileName() != "Me" {
		if time.Now().After(deadline) {
			t.Fatalf("/api/me never shows the new profile")
		}
		time.Sleep(200 * time.Millisecond)
	}
	// GET is not a broadcast.
	if r := e.do("GET", "/api/broadcast", map[string]string{"Authorization": posting}, nil); r.status != http.StatusMethodNotAllowed {
		t.Errorf("GET /api/broadcast: HTTP %d", r.status)
	}
}
