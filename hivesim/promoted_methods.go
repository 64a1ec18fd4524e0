package hivesim

// The methods older API nodes serve and current ones dropped (issue 28
// item 6): hivemind's condenser_api and tags_api get_discussions_by_promoted
// (hivemind up to 1.27; dropped in 0f025fc, January 2025) and HAfAH's
// positional condenser_api.enum_virtual_ops (PostgREST HAfAH of 2022;
// dropped in 8763e8c). The simulated node answers them as those versions
// did, so that the typed RPCs can be walked end to end.

// The promoted sort of rankedPosts is hivemind 1.27's promoted list: the
// pending top-level posts of a tag, most promoted first and, among equal
// amounts, newest (highest id) first. Deviation: hivemind lists only posts
// whose amount is above 0, which on the simulated chain would be none;
// listing every pending post as promoted by 0 keeps hivemind's order and
// cursor and gives a list that pages. get_discussions_by_promoted is
// registered with the other get_discussions_by_* methods (content_methods.go)
// and reads the discussion query as they do (hivemind 1.27 shared their
// signature).

// promotedAmount is the HBD (in satoshis) spent promoting a post: transfers
// to "null" with the post's URL as memo. The simulated chain makes no such
// transfers, so every post's amount is 0.
func promotedAmount(*Comment) int64 { return 0 }

// condenserVirtualOpsParams are the positions of HAfAH's condenser_api
// enum_virtual_ops (6ed49d4, hafah_endpoints.sql call_enum_virtual_ops).
var condenserVirtualOpsParams = []string{"block_range_begin", "block_range_end", "operation_begin", "limit", "filter", "include_reversible", "group_by_block"}

// condenserEnumVirtualOps is HAfAH's condenser_api.enum_virtual_ops: the
// account_history_api method read from positions (or names; HAfAH's
// parse_argument took both), null meaning the default, and answered in
// the same form (HAfAH never passed its legacy flag to enum_virtual_ops_json).
func condenserEnumVirtualOps(c *callCtx, p any, w *jw) *rpcError {
	arr, ok := p.([]any)
	if !ok {
		return enumVirtualOps(c, p, w)
	}
	named := map[string]any{}
	for i, v := range arr {
		if i < len(condenserVirtualOpsParams) && v != nil {
			named[condenserVirtualOpsParams[i]] = v
		}
	}
	return enumVirtualOps(c, named, w)
}

// registerPromotedMethods adds the methods of this file.
func registerPromotedMethods(r registry) {
	r.hafah("condenser_api.enum_virtual_ops", condenserEnumVirtualOps)
}
