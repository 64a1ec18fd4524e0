package server

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// hivemindParams are the params each hivemind method accepts, from its
// validate_json_arguments call in openhive-network/hivemind (cab9e32,
// hive/db/sql_scripts/postgrest/**/*.sql). hivemind answers -32602 for any
// other key, so a typed request must send no other (issue 28 item 4).
// get_discussions_by_promoted, which current hivemind no longer serves, has
// the params of the last release that listed promoted posts (v1.27.4.0.0,
// hive/server/condenser_api/methods.py: the signature of
// get_discussions_by_trending).
var hivemindParams = map[string]string{
	"bridge.account_notifications":                    "account min_score last_id limit",
	"bridge.does_user_follow_any_lists":               "observer",
	"bridge.get_community":                            "name observer",
	"bridge.get_community_context":                    "name account",
	"bridge.get_discussion":                           "author permlink observer muted_reasons_filter",
	"bridge.get_follow_list":                          "observer follow_type",
	"bridge.get_payout_stats":                         "limit",
	"bridge.get_post":                                 "author permlink observer",
	"bridge.get_post_header":                          "author permlink",
	"bridge.get_profile":                              "account observer",
	"bridge.get_profiles":                             "accounts observer",
	"bridge.get_ranked_posts":                         "sort start_author start_permlink limit tag observer muted_reasons_filter",
	"bridge.get_relationship_between_accounts":        "account1 account2 observer debug",
	"bridge.get_trending_topics":                      "limit observer",
	"bridge.list_all_subscriptions":                   "account",
	"bridge.list_communities":                         "last limit query sort observer",
	"bridge.list_community_roles":                     "community last limit",
	"bridge.list_pop_communities":                     "limit",
	"bridge.list_subscribers":                         "community last limit",
	"bridge.post_notifications":                       "author permlink min_score last_id limit",
	"bridge.unread_notifications":                     "account min_score",
	"condenser_api.get_discussions_by_promoted":       "start_author start_permlink limit tag truncate_body filter_tags observer",
	"condenser_api.get_discussions_by_trending":       "start_author start_permlink limit tag truncate_body filter_tags observer",
	"condenser_api.get_discussions_by_created":        "start_author start_permlink limit tag truncate_body filter_tags observer",
	"condenser_api.get_discussions_by_hot":            "start_author start_permlink limit tag truncate_body filter_tags observer",
	"condenser_api.get_post_discussions_by_payout":    "start_author start_permlink limit tag truncate_body filter_tags observer",
	"condenser_api.get_comment_discussions_by_payout": "start_author start_permlink limit tag truncate_body filter_tags observer",
	"condenser_api.get_discussions_by_blog":           "tag start_author start_permlink limit truncate_body filter_tags observer",
	"condenser_api.get_discussions_by_feed":           "tag start_author start_permlink limit truncate_body filter_tags observer",
	"condenser_api.get_discussions_by_comments":       "start_author start_permlink limit truncate_body filter_tags observer",
	"tags_api.get_discussions_by_promoted":            "start_author start_permlink limit tag truncate_body filter_tags observer",
	"tags_api.get_discussions_by_trending":            "start_author start_permlink limit tag truncate_body filter_tags observer",
	"tags_api.get_discussions_by_created":             "start_author start_permlink limit tag truncate_body filter_tags observer",
	"tags_api.get_discussions_by_hot":                 "start_author start_permlink limit tag truncate_body filter_tags observer",
	"tags_api.get_post_discussions_by_payout":         "start_author start_permlink limit tag truncate_body filter_tags observer",
	"tags_api.get_comment_discussions_by_payout":      "start_author start_permlink limit tag truncate_body filter_tags observer",
	"tags_api.get_discussions_by_blog":                "tag start_author start_permlink limit truncate_body filter_tags observer",
	"tags_api.get_discussions_by_comments":            "start_author start_permlink limit truncate_body filter_tags observer",
	"tags_api.get_discussions_by_author_before_date":  "author start_permlink before_date limit truncate_body observer",
	"database_api.find_votes":                         "author permlink observer",
	"database_api.list_votes":                         "start limit order observer",
	"search_api.find_text":                            "pattern sort author start_author start_permlink limit observer truncate_body",
}

// TestHivemindParamsAccepted builds every typed request of a hivemind
// method twice, empty and with every field set, and checks that its params
// hold only keys hivemind accepts (on a85e8cd, the get_discussions_by_*
// queries always sent "tag": "" and "observer": "", and tags_api's
// get_discussions_by_comments had a tag). condenser_api's queries share
// DiscussionQuery, whose tag get_discussions_by_comments refuses: the
// field's comment says to leave it unset there, so the filled request
// leaves it unset.
func TestHivemindParamsAccepted(t *testing.T) {
	t.Parallel()
	methods := plannedMethods(t)
	for method, keys := range hivemindParams {
		tm := methods[method]
		if tm == nil {
			t.Errorf("%s: no typed RPC", method)
			continue
		}
		accepted := strings.Fields(keys)
		for _, filled := range []bool{false, true} {
			req := tm.Request.New()
			if filled {
				fillAll(req, slices.Contains(accepted, "tag"))
			}
			checkHivemindParams(t, tm, method, req, accepted, filled)
		}
	}
}

// checkHivemindParams prepares req and checks its params' keys.
func checkHivemindParams(t *testing.T, tm *typedMethod, method string, req protoreflect.Message, accepted []string, filled bool) {
	t.Helper()
	{
		params, _, err := tm.prepare(req)
		if err != nil {
			if filled { // an empty request may lack a required field
				t.Errorf("%s: %v", method, err)
			}
			return
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(params, &obj); err != nil {
			// condenser_api: [query]
			var arr []map[string]json.RawMessage
			if err := json.Unmarshal(params, &arr); err != nil || len(arr) > 1 {
				t.Errorf("%s: params %s are neither an object nor [object]", method, params)
				return
			}
			if len(arr) == 1 {
				obj = arr[0]
			}
		}
		for k := range obj {
			if !slices.Contains(accepted, k) {
				t.Errorf("%s: sends %q, which hivemind refuses (params %s)", method, k, params)
			}
		}
	}
}

// fillAll sets every singular scalar field of m (and of its discussion
// query) to a non-zero value, a field named tag only when withTag; enums
// take their first named value.
func fillAll(m protoreflect.Message, withTag bool) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.IsList() || fd.IsMap() || fd.ContainingOneof() != nil && !fd.ContainingOneof().IsSynthetic() ||
			(fd.Name() == "tag" && !withTag) {
			continue
		}
		switch fd.Kind() {
		case protoreflect.StringKind:
			m.Set(fd, protoreflect.ValueOfString("x"))
		case protoreflect.BoolKind:
			m.Set(fd, protoreflect.ValueOfBool(true))
		case protoreflect.Uint32Kind:
			m.Set(fd, protoreflect.ValueOfUint32(1))
		case protoreflect.Int32Kind:
			m.Set(fd, protoreflect.ValueOfInt32(1))
		case protoreflect.Uint64Kind:
			m.Set(fd, protoreflect.ValueOfUint64(1))
		case protoreflect.Int64Kind:
			m.Set(fd, protoreflect.ValueOfInt64(1))
		case protoreflect.EnumKind:
			if vals := fd.Enum().Values(); vals.Len() > 1 {
				m.Set(fd, protoreflect.ValueOfEnum(vals.Get(1).Number()))
			}
		case protoreflect.MessageKind:
			if fd.Message().FullName() == "hive.types.v1.DiscussionQuery" {
				fillAll(m.Mutable(fd).Message(), withTag)
			}
		}
	}
}
