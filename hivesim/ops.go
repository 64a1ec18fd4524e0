package hivesim

import (
	"slices"
	"strconv"
)

// operation is one operation with its fields in FC_REFLECT order.
type operation struct {
	Name     string // short name, e.g. "transfer"
	Num      int    // its tag in hive::protocol::operation (the history filters' bit)
	Virtual  bool
	fields   obj      // name, value pairs (jw.value)
	impacted []string // accounts whose history holds this operation
}

// newOp is an operation whose history is that of the impacted accounts
// (each once; "" is none).
func newOp(name string, num int, impacted []string, fields ...any) *operation {
	op := &operation{Name: name, Num: num, fields: fields}
	for _, n := range impacted {
		if n != "" && !slices.Contains(op.impacted, n) {
			op.impacted = append(op.impacted, n)
		}
	}
	return op
}

func opVoteOp(voter, author, permlink string, weight int16) *operation {
	return newOp("vote", 0, []string{voter, author}, "voter", voter, "author", author, "permlink", permlink, "weight", weight)
}

func opCommentOp(c *Comment) *operation {
	return newOp("comment", 1, []string{c.Author, c.ParentAuthor}, "parent_author", c.ParentAuthor,
		"parent_permlink", c.ParentPermlink, "author", c.Author, "permlink", c.Permlink, "title", c.Title, "body", c.Body,
		"json_metadata", c.JSONMetadata)
}

func opTransferOp(from, to string, amount Asset, memo string) *operation {
	return newOp("transfer", 2, []string{from, to}, "from", from, "to", to, "amount", amount, "memo", memo)
}

func opTransferToVestingOp(from, to string, amount Asset) *operation {
	return newOp("transfer_to_vesting", 3, []string{from, to}, "from", from, "to", to, "amount", amount)
}

func opLimitOrderCreateOp(o *LimitOrder) *operation {
	return newOp("limit_order_create", 5, []string{o.Seller}, "owner", o.Seller, "orderid", o.OrderID,
		"amount_to_sell", o.SellPrice.Base, "min_to_receive", o.SellPrice.Quote, "fill_or_kill", false, "expiration", o.Expiration)
}

func opConvertOp(owner string, requestID uint32, amount Asset) *operation {
	return newOp("convert", 8, []string{owner}, "owner", owner, "requestid", requestID, "amount", amount)
}

func opAccountCreateOp(creator string, a *Account) *operation {
	return newOp("account_create", 9, []string{creator, a.Name}, "fee", asset(3000, HIVE), "creator", creator,
		"new_account_name", a.Name, "owner", a.Owner, "active", a.Active, "posting", a.Posting,
		"memo_key", a.MemoKey, "json_metadata", a.JSONMetadata)
}

func opAccountWitnessVote(account, witness string) *operation {
	return newOp("account_witness_vote", 12, []string{account, witness}, "account", account,
		"witness", witness, "approve", true)
}

func opAccountWitnessProxy(account, proxy string) *operation {
	return newOp("account_witness_proxy", 13, []string{account, proxy}, "account", account, "proxy", proxy)
}

func opCustomJSONOp(poster, id, js string) *operation {
	return newOp("custom_json", 18, []string{poster}, "required_auths", []string(nil),
		"required_posting_auths", []string{poster}, "id", id, "json", js)
}

func opDelegateOp(d *VestingDelegation) *operation {
	return newOp("delegate_vesting_shares", 40, []string{d.Delegator, d.Delegatee},
		"delegator", d.Delegator, "delegatee", d.Delegatee, "vesting_shares", d.VestingShares)
}

func opProducerRewardOp(producer string, vests int64) *operation {
	op := newOp("producer_reward", 64, []string{producer}, "producer", producer, "vesting_shares", asset(vests, VESTS))
	op.Virtual = true
	return op
}

// writeJSON writes an operation: {"type":"x_operation","value":{…}} with NAI assets, or in
// legacy (condenser_api) form ["x", {…}] with legacy asset strings.
func (op *operation) writeJSON(w *jw, legacy bool) {
	if legacy {
		w.value([]any{op.Name, op.fields}, true)
		return
	}
	w.value(obj{"type", op.Name + "_operation", "value", op.fields}, false)
}

// writeAsset writes a NAI object {"amount","precision","nai"} or a legacy string.
func writeAsset(w *jw, a Asset, legacy bool) {
	if legacy {
		w.str(a.String())
		return
	}
	w.objBegin()
	w.kstr("amount", strconv.FormatInt(a.Amount, 10))
	w.knum("precision", int64(a.Precision))
	w.kstr("nai", a.NAI())
	w.objEnd()
}

func (w *jw) kasset(k string, a Asset, legacy bool) { w.key(k); writeAsset(w, a, legacy) }

func writePrice(w *jw, p Price, legacy bool) {
	w.objBegin()
	w.kasset("base", p.Base, legacy)
	w.kasset("quote", p.Quote, legacy)
	w.objEnd()
}

// writeAuthority writes {weight_threshold, account_auths, key_auths}; the auths are
// arrays of [name, weight] pairs as hived emits them, not maps. (By hand:
// every account carries three, and writeValue would allocate each pair.)
func writeAuthority(w *jw, a *Authority) {
	w.objBegin()
	w.knum("weight_threshold", int64(a.WeightThreshold))
	for _, part := range []struct {
		k string
		v []AuthWeight
	}{{"account_auths", a.AccountAuths}, {"key_auths", a.KeyAuths}} {
		w.key(part.k)
		w.arrBegin()
		for _, aw := range part.v {
			w.arrBegin()
			w.str(aw.Name)
			w.num(int64(aw.Weight))
			w.arrEnd()
		}
		w.arrEnd()
	}
	w.objEnd()
}
