package router_test

import (
	"testing"
	"time"

	"github.com/hivegate/hivegate/router"
)

// route is one row of a routing table: a request and where it goes.
type route struct {
	method, params string
	key            string
	backend        string
	ttl            string // seconds or word
	timeout        int    // seconds
	retries        int
	matched        router.Matched
	upstream       string
}

func checkRoutes(t *testing.T, r *router.Router, routes []route) {
	t.Helper()
	for _, tc := range routes {
		t.Run(tc.method+" "+tc.params, func(t *testing.T) {
			t.Parallel()
			c, err := r.Parse(tc.method, raw(tc.params))
			if err != nil {
				t.Fatal(err)
			}
			rt, err := r.Resolve(c)
			if err != nil {
				t.Fatal(err)
			}
			if c.Key != tc.key {
				t.Errorf("key\n %s\nwant\n %s", c.Key, tc.key)
			}
			if rt.Backend != tc.backend {
				t.Errorf("backend %s, want %s", rt.Backend, tc.backend)
			}
			if u, _ := r.Config().BackendURL(tc.backend); rt.URL != u {
				t.Errorf("url %s, want %s", rt.URL, u)
			}
			if rt.TTL.String() != tc.ttl {
				t.Errorf("ttl %s, want %s", rt.TTL, tc.ttl)
			}
			if rt.Timeout != time.Duration(tc.timeout)*time.Second {
				t.Errorf("timeout %v, want %ds", rt.Timeout, tc.timeout)
			}
			if rt.Retries != tc.retries {
				t.Errorf("retries %d, want %d", rt.Retries, tc.retries)
			}
			if rt.Matched != tc.matched {
				t.Errorf("matched\n %+v\nwant\n %+v", rt.Matched, tc.matched)
			}
			if c.UpstreamMethod != tc.upstream {
				t.Errorf("upstream method %s, want %s", c.UpstreamMethod, tc.upstream)
			}
		})
	}
}

// m builds a Matched from the four config keys.
func m(url, ttl, timeout, retries string) router.Matched {
	return router.Matched{URL: url, TTL: ttl, Timeout: timeout, Retries: retries}
}

// TestDroneRoutes shows the Drone config.yaml routing as its author meant:
// history to HAfAH, the social layer to hivemind, broadcasts to the synced
// node, everything else to hived, hived's bare calls translated to
// condenser_api.
func TestDroneRoutes(t *testing.T) {
	t.Parallel()
	r := loadRouter(t, "../config/testdata/drone.yaml")
	const (
		appbase = "appbase"
		cget    = "appbase.condenser_api.get_block"
		getSt   = "appbase.condenser_api.get_state"
		opsKey  = "appbase.condenser_api.get_ops_in_block.params=[2889020,false]"
	)
	checkRoutes(t, r, []route{
		{"get_block", `[1]`, "appbase.condenser_api.get_block.params=[1]", "hafah", "EXPIRE_IF_REVERSIBLE", 3, 0, m(cget, cget, appbase, ""), "condenser_api.get_block"},
		{"call", `["database_api","get_block",[1]]`, "appbase.condenser_api.get_block.params=[1]", "hafah", "EXPIRE_IF_REVERSIBLE", 3, 0, m(cget, cget, appbase, ""), "condenser_api.get_block"},
		{"condenser_api.get_block", `[1]`, "appbase.condenser_api.get_block.params=[1]", "hafah", "EXPIRE_IF_REVERSIBLE", 3, 0, m(cget, cget, appbase, ""), "condenser_api.get_block"},
		{"block_api.get_block", `{"block_num":1}`, `appbase.block_api.get_block.params={"block_num":1}`, "hafah", "EXPIRE_IF_REVERSIBLE", 3, 0, m("appbase.block_api", "appbase.block_api", appbase, ""), "block_api.get_block"},
		{"condenser_api.get_state", `["witnesses"]`, `appbase.condenser_api.get_state.params=["witnesses"]`, "hivemind", "1", 3, 0, m(getSt+".params=['witnesses']", getSt, appbase, ""), "condenser_api.get_state"},
		{"condenser_api.get_state", `["/trending"]`, `appbase.condenser_api.get_state.params=["/trending"]`, "hived", "30", 3, 0, m(appbase, getSt+".params=['/trending']", appbase, ""), "condenser_api.get_state"},
		{"get_state", `["/created"]`, `appbase.condenser_api.get_state.params=["/created"]`, "hived", "10", 3, 0, m(appbase, getSt+`.params=["/created"]`, appbase, ""), "condenser_api.get_state"},
		{"condenser_api.get_state", `["/hot"]`, `appbase.condenser_api.get_state.params=["/hot"]`, "hived", "1", 3, 0, m(appbase, getSt, appbase, ""), "condenser_api.get_state"},
		{"call", `["condenser_api","get_ops_in_block",[2889020, false]]`, "appbase.condenser_api.get_ops_in_block.params=[2889020,false]", "hafah", "NO_EXPIRE", 20, 0, m("appbase.condenser_api.get_ops_in_block", opsKey, opsKey, ""), "call"},
		{"condenser_api.get_ops_in_block", `[2889021,false]`, "appbase.condenser_api.get_ops_in_block.params=[2889021,false]", "hafah", "3", 3, 0, m("appbase.condenser_api.get_ops_in_block", appbase, appbase, ""), "condenser_api.get_ops_in_block"},
		{"account_history_api.get_ops_in_block", `{"block_num":1,"only_virtual":false}`, `appbase.account_history_api.get_ops_in_block.params={"block_num":1,"only_virtual":false}`, "hafah", "EXPIRE_IF_REVERSIBLE", 10, 0, m("appbase.account_history_api", "appbase.account_history_api.get_ops_in_block", "appbase.account_history_api", ""), "account_history_api.get_ops_in_block"},
		{"condenser_api.get_account_history", `["alice",-1,100]`, `appbase.condenser_api.get_account_history.params=["alice",-1,100]`, "hafah", "6", 10, 0, m("appbase.condenser_api.get_account_history", "appbase.condenser_api.get_account_history", "appbase.condenser_api.get_account_history", ""), "condenser_api.get_account_history"},
		{"condenser_api.get_followers", `["alice","","blog",10]`, `appbase.condenser_api.get_followers.params=["alice","","blog",10]`, "hivemind", "3", 3, 0, m("appbase.condenser_api.get_followers", appbase, appbase, ""), "condenser_api.get_followers"},
		{"condenser_api.get_content", `["alice","post"]`, `appbase.condenser_api.get_content.params=["alice","post"]`, "hivemind", "6", 3, 0, m("appbase.condenser_api.get_content", "appbase.condenser_api.get_content", appbase, ""), "condenser_api.get_content"},
		{"tags_api.get_trending_tags", `{"limit":10}`, `appbase.tags_api.get_trending_tags.params={"limit":10}`, "hivemind", "3", 3, 0, m("appbase.tags_api", appbase, appbase, ""), "tags_api.get_trending_tags"},
		{"database_api.find_comments", `{"comments":[["alice","post"]]}`, `appbase.database_api.find_comments.params={"comments":[["alice","post"]]}`, "hivemind", "3", 3, 0, m("appbase.database_api.find_comments", appbase, appbase, ""), "database_api.find_comments"},
		{"database_api.get_dynamic_global_properties", `{}`, `appbase.database_api.get_dynamic_global_properties.params={}`, "hived", "1", 3, 0, m(appbase, "appbase.database_api.get_dynamic_global_properties", appbase, ""), "database_api.get_dynamic_global_properties"},
		{"get_dynamic_global_properties", ``, "appbase.condenser_api.get_dynamic_global_properties", "hived", "1", 3, 0, m(appbase, "appbase.condenser_api.get_dynamic_global_properties", appbase, ""), "condenser_api.get_dynamic_global_properties"},
		{"login_api.get_api_by_name", `{}`, `appbase.login_api.get_api_by_name.params={}`, "hived", "NO_CACHE", 3, 0, m(appbase, "appbase.login_api", appbase, ""), "login_api.get_api_by_name"},
		{"bridge.get_discussion", `{"author":"alice","permlink":"post"}`, `bridge.get_discussion.params={"author":"alice","permlink":"post"}`, "hivemind", "6", 30, 0, m("bridge", "bridge.get_discussion", "bridge", ""), "bridge.get_discussion"},
		{"bridge.get_ranked_posts", `{"tag":"","sort":"trending","observer":""}`, `bridge.get_ranked_posts.params={"observer":"","sort":"trending","tag":""}`, "hivemind", "30", 30, 0, m("bridge", `bridge.get_ranked_posts.params={"sort":"trending","tag":"","observer":""}`, "bridge", ""), "bridge.get_ranked_posts"},
		{"bridge.get_ranked_posts", `{"tag":"","sort":"hot","observer":""}`, `bridge.get_ranked_posts.params={"observer":"","sort":"hot","tag":""}`, "hivemind", "6", 30, 0, m("bridge", "bridge", "bridge", ""), "bridge.get_ranked_posts"},
		{"bridge.unread_notifications", `{"account":"alice"}`, `bridge.unread_notifications.params={"account":"alice"}`, "hivemind", "NO_CACHE", 30, 0, m("bridge", "bridge.unread_notifications", "bridge", ""), "bridge.unread_notifications"},
		{"hive.db_head_state", `{}`, `hive.db_head_state.params={}`, "hivemind", "6", 30, 0, m("hive", "hive", "hive", ""), "hive.db_head_state"},
		{"condenser_api.broadcast_transaction", `[{"ref_block_num":1}]`, `appbase.condenser_api.broadcast_transaction.params=[{"ref_block_num":1}]`, "hived-sync", "NO_CACHE", 0, 0, m("appbase.condenser_api.broadcast_transaction", appbase, "appbase.condenser_api.broadcast_transaction", ""), "condenser_api.broadcast_transaction"},
		{"network_broadcast_api.broadcast_transaction", `{"trx":{}}`, `appbase.network_broadcast_api.broadcast_transaction.params={"trx":{}}`, "hived-sync", "NO_CACHE", 0, 0, m("appbase.network_broadcast_api", "appbase.network_broadcast_api", "appbase.network_broadcast_api", ""), "network_broadcast_api.broadcast_transaction"},
	})
}

// TestJussiRoutes shows the jussi config.json routing as its author meant:
// steemd calls translated to condenser_api on the appbase node, the social
// calls to hivemind, history to its own node, overseer separately.
func TestJussiRoutes(t *testing.T) {
	t.Parallel()
	r := loadRouter(t, "../config/testdata/jussi.json")
	const (
		appbase  = "appbase"
		cond     = "appbase.condenser_api"
		getSt    = "appbase.condenser_api.get_state"
		hivemind = "appbase.condenser_api.get_followers"
	)
	checkRoutes(t, r, []route{
		{"get_block", `[1]`, "appbase.condenser_api.get_block.params=[1]", appbase, "EXPIRE_IF_REVERSIBLE", 3, 2, m(appbase, cond+".get_block", appbase, cond+".get_block"), "condenser_api.get_block"},
		{"call", `[0,"get_block",[1]]`, "appbase.condenser_api.get_block.params=[1]", appbase, "EXPIRE_IF_REVERSIBLE", 3, 2, m(appbase, cond+".get_block", appbase, cond+".get_block"), "condenser_api.get_block"},
		{"call", `["database_api","get_state",["/trending"]]`, `appbase.condenser_api.get_state.params=["/trending"]`, appbase, "30", 3, 1, m(appbase, getSt+".params=['/trending']", appbase, appbase), "condenser_api.get_state"},
		{"get_state", `["trending"]`, `appbase.condenser_api.get_state.params=["trending"]`, appbase, "30", 3, 1, m(appbase, getSt+".params=['trending']", appbase, appbase), "condenser_api.get_state"},
		{"get_state", `["/created"]`, `appbase.condenser_api.get_state.params=["/created"]`, appbase, "10", 3, 1, m(appbase, getSt+".params=['/created']", appbase, appbase), "condenser_api.get_state"},
		{"get_state", `["/hot"]`, `appbase.condenser_api.get_state.params=["/hot"]`, appbase, "1", 3, 1, m(appbase, getSt, appbase, appbase), "condenser_api.get_state"},
		{"condenser_api.get_accounts", `[["steemit"]]`, `appbase.condenser_api.get_accounts.params=[["steemit"]]`, appbase, "60", 3, 1, m(appbase, cond+".get_accounts.params=[['steemit']]", appbase, appbase), "condenser_api.get_accounts"},
		{"get_accounts", `[["alice"]]`, `appbase.condenser_api.get_accounts.params=[["alice"]]`, appbase, "3", 3, 1, m(appbase, cond, appbase, appbase), "condenser_api.get_accounts"},
		{"get_dynamic_global_properties", `[]`, "appbase.condenser_api.get_dynamic_global_properties.params=[]", appbase, "1", 3, 1, m(appbase, cond+".get_dynamic_global_properties", appbase, appbase), "condenser_api.get_dynamic_global_properties"},
		{"condenser_api.get_followers", `["alice","","blog",10]`, `appbase.condenser_api.get_followers.params=["alice","","blog",10]`, hivemind, "NO_EXPIRE", 3, 1, m(cond+".get_followers", cond+".get_followers", appbase, appbase), "condenser_api.get_followers"},
		{"condenser_api.get_following", `["alice","","blog",10]`, `appbase.condenser_api.get_following.params=["alice","","blog",10]`, hivemind, "3", 3, 1, m(cond+".get_following", cond, appbase, appbase), "condenser_api.get_following"},
		{"condenser_api.get_account_history", `["alice",-1,10]`, `appbase.condenser_api.get_account_history.params=["alice",-1,10]`, "appbase.condenser_api.get_account_history", "3", 15, 1, m(cond+".get_account_history", cond, cond+".get_account_history", appbase), "condenser_api.get_account_history"},
		{"account_history_api.get_account_history", `{"account":"alice","start":-1,"limit":10}`, `appbase.account_history_api.get_account_history.params={"account":"alice","limit":10,"start":-1}`, "appbase.condenser_api.get_account_history", "EXPIRE_IF_REVERSIBLE", 3, 1, m("appbase.account_history_api", appbase, appbase, appbase), "account_history_api.get_account_history"},
		{"block_api.get_block", `{"block_num":1}`, `appbase.block_api.get_block.params={"block_num":1}`, appbase, "EXPIRE_IF_REVERSIBLE", 3, 1, m(appbase, "appbase.block_api", appbase, appbase), "block_api.get_block"},
		{"database_api.list_accounts", `{"start":"","limit":10,"order":"by_name"}`, `appbase.database_api.list_accounts.params={"limit":10,"order":"by_name","start":""}`, appbase, "1", 3, 1, m(appbase, "appbase.database_api", appbase, appbase), "database_api.list_accounts"},
		{"hive.db_head_state", `{}`, `hive.db_head_state.params={}`, hivemind, "3", 30, 0, m("hive", "hive", "hive", ""), "hive.db_head_state"},
		{"bridge.get_discussion", `{"author":"alice","permlink":"post"}`, `bridge.get_discussion.params={"author":"alice","permlink":"post"}`, hivemind, "6", 30, 0, m("bridge", "bridge.get_discussion", "bridge", ""), "bridge.get_discussion"},
		{"bridge.get_ranked_posts", `{"sort":"trending","tag":"","observer":null}`, `bridge.get_ranked_posts.params={"observer":null,"sort":"trending","tag":""}`, hivemind, "30", 30, 0, m("bridge", "bridge.get_ranked_posts.params={'sort': 'trending', 'tag': '', 'observer': None}", "bridge", ""), "bridge.get_ranked_posts"},
		{"overseer.collect", `{"metric":"x"}`, `overseer.collect.params={"metric":"x"}`, "overseer", "5", 5, 0, m("overseer", "overseer", "overseer", "overseer"), "overseer.collect"},
		{"condenser_api.broadcast_transaction", `[{}]`, "appbase.condenser_api.broadcast_transaction.params=[{}]", appbase, "NO_CACHE", 0, 0, m(appbase, cond, cond+".broadcast_transaction", appbase), "condenser_api.broadcast_transaction"},
		{"chain_api.push_block", `{"block":{}}`, `appbase.chain_api.push_block.params={"block":{}}`, appbase, "NO_CACHE", 0, 0, m(appbase, appbase, "appbase.chain_api.push_block", appbase), "chain_api.push_block"},
	})
}
