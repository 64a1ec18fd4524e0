package gateway_test

import (
	dbv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
	"github.com/hivegate/hivegate/hivesim"
)

// smtPagingCases walk the database_api.list_smt_* lists in every order
// (issue 28 item 1: they were excused from TestPagingContract because a real
// node's lists are empty). The simulated node holds a fixed set of SMTs
// with ties in every order when made WithSMTs (hivesim/i28_smt.go).
func smtPagingCases(node *hivesim.Node) []pagingCase {
	tokens, contributions, emissions := node.SMTCounts()
	db := "hive.database_api.v1.DatabaseApiService."
	return []pagingCase{
		{"smt tokens by_symbol", db + "ListSmtTokens", &dbv1.ListSmtTokensRequest{Order: dbv1.ListSmtTokensOrder_LIST_SMT_TOKENS_ORDER_BY_SYMBOL}, tokens},
		{"smt tokens by_control_account", db + "ListSmtTokens", &dbv1.ListSmtTokensRequest{Order: dbv1.ListSmtTokensOrder_LIST_SMT_TOKENS_ORDER_BY_CONTROL_ACCOUNT}, tokens},
		{"smt contributions by_symbol_contributor", db + "ListSmtContributions", &dbv1.ListSmtContributionsRequest{Order: dbv1.ListSmtContributionsOrder_LIST_SMT_CONTRIBUTIONS_ORDER_BY_SYMBOL_CONTRIBUTOR}, contributions},
		{"smt contributions by_symbol_id", db + "ListSmtContributions", &dbv1.ListSmtContributionsRequest{Order: dbv1.ListSmtContributionsOrder_LIST_SMT_CONTRIBUTIONS_ORDER_BY_SYMBOL_ID}, contributions},
		{"smt contributions by_contributor", db + "ListSmtContributions", &dbv1.ListSmtContributionsRequest{Order: dbv1.ListSmtContributionsOrder_LIST_SMT_CONTRIBUTIONS_ORDER_BY_CONTRIBUTOR}, contributions},
		{"smt token emissions by_symbol_time", db + "ListSmtTokenEmissions", &dbv1.ListSmtTokenEmissionsRequest{Order: dbv1.ListSmtTokenEmissionsOrder_LIST_SMT_TOKEN_EMISSIONS_ORDER_BY_SYMBOL_TIME}, emissions},
	}
}
