package hivesim

import (
	"strconv"
	"time"
)

// Operation type numbers (their position in hive::protocol::operation), used by the
// account-history operation filters.
const (
	numVote                 = 0
	numComment              = 1
	numTransfer             = 2
	numTransferToVesting    = 3
	numLimitOrderCreate     = 5
	numConvert              = 8
	numAccountCreate        = 9
	numAccountWitnessVote   = 12
	numAccountWitnessProxy  = 13
	numCustomJSON           = 18
	numDelegateVestingShare = 40
	numProducerReward       = 64
)

// operation is one operation with its fields in FC_REFLECT order.
type operation struct {
	Name     string // short name, e.g. "transfer"
	Num      int    // operation type number
	Virtual  bool
	fields   []field
	impacted []string // accounts whose history holds this operation
}

type fieldKind uint8

const (
	fStr fieldKind = iota
	fNum
	fI64
	fAsset
	fBool
	fAuth
	fStrs
	fTime
)

type field struct {
	k    string
	kind fieldKind
	s    string
	i    int64
	a    Asset
	b    bool
	auth *Authority
	strs []string
	t    time.Time
}

func fstr(k, v string) field            { return field{k: k, kind: fStr, s: v} }
func fn(k string, v int64) field        { return field{k: k, kind: fNum, i: v} }
func fa(k string, v Asset) field        { return field{k: k, kind: fAsset, a: v} }
func fb(k string, v bool) field         { return field{k: k, kind: fBool, b: v} }
func fauth(k string, v Authority) field { return field{k: k, kind: fAuth, auth: &v} }
func fstrs(k string, v []string) field  { return field{k: k, kind: fStrs, strs: v} }
func ft(k string, v time.Time) field    { return field{k: k, kind: fTime, t: v} }

func dedupe(names ...string) []string {
	out := names[:0:0]
	for _, n := range names {
		if n == "" {
			continue
		}
		dup := false
		for _, o := range out {
			if o == n {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, n)
		}
	}
	return out
}

func opVoteOp(voter, author, permlink string, weight int16) *operation {
	return &operation{Name: "vote", Num: numVote, impacted: dedupe(voter, author), fields: []field{
		fstr("voter", voter), fstr("author", author), fstr("permlink", permlink), fn("weight", int64(weight))}}
}

func opCommentOp(c *Comment) *operation {
	return &operation{Name: "comment", Num: numComment, impacted: dedupe(c.Author, c.ParentAuthor), fields: []field{
		fstr("parent_author", c.ParentAuthor), fstr("parent_permlink", c.ParentPermlink), fstr("author", c.Author),
		fstr("permlink", c.Permlink), fstr("title", c.Title), fstr("body", c.Body), fstr("json_metadata", c.JSONMetadata)}}
}

func opTransferOp(from, to string, amount Asset, memo string) *operation {
	return &operation{Name: "transfer", Num: numTransfer, impacted: dedupe(from, to), fields: []field{
		fstr("from", from), fstr("to", to), fa("amount", amount), fstr("memo", memo)}}
}

func opTransferToVestingOp(from, to string, amount Asset) *operation {
	return &operation{Name: "transfer_to_vesting", Num: numTransferToVesting, impacted: dedupe(from, to), fields: []field{
		fstr("from", from), fstr("to", to), fa("amount", amount)}}
}

func opLimitOrderCreateOp(o *LimitOrder) *operation {
	return &operation{Name: "limit_order_create", Num: numLimitOrderCreate, impacted: dedupe(o.Seller), fields: []field{
		fstr("owner", o.Seller), fn("orderid", int64(o.OrderID)), fa("amount_to_sell", o.SellPrice.Base),
		fa("min_to_receive", o.SellPrice.Quote), fb("fill_or_kill", false), ft("expiration", o.Expiration)}}
}

func opConvertOp(owner string, requestID uint32, amount Asset) *operation {
	return &operation{Name: "convert", Num: numConvert, impacted: dedupe(owner), fields: []field{
		fstr("owner", owner), fn("requestid", int64(requestID)), fa("amount", amount)}}
}

func opAccountCreateOp(creator string, a *Account) *operation {
	return &operation{Name: "account_create", Num: numAccountCreate, impacted: dedupe(creator, a.Name), fields: []field{
		fa("fee", asset(3000, HIVE)), fstr("creator", creator), fstr("new_account_name", a.Name),
		fauth("owner", a.Owner), fauth("active", a.Active), fauth("posting", a.Posting),
		fstr("memo_key", a.MemoKey), fstr("json_metadata", a.JSONMetadata)}}
}

func opAccountWitnessVote(account, witness string) *operation {
	return &operation{Name: "account_witness_vote", Num: numAccountWitnessVote, impacted: dedupe(account, witness), fields: []field{
		fstr("account", account), fstr("witness", witness), fb("approve", true)}}
}

func opAccountWitnessProxy(account, proxy string) *operation {
	return &operation{Name: "account_witness_proxy", Num: numAccountWitnessProxy, impacted: dedupe(account, proxy), fields: []field{
		fstr("account", account), fstr("proxy", proxy)}}
}

func opCustomJSONOp(poster, id, js string) *operation {
	return &operation{Name: "custom_json", Num: numCustomJSON, impacted: dedupe(poster), fields: []field{
		fstrs("required_auths", nil), fstrs("required_posting_auths", []string{poster}), fstr("id", id), fstr("json", js)}}
}

func opDelegateOp(d *VestingDelegation) *operation {
	return &operation{Name: "delegate_vesting_shares", Num: numDelegateVestingShare, impacted: dedupe(d.Delegator, d.Delegatee), fields: []field{
		fstr("delegator", d.Delegator), fstr("delegatee", d.Delegatee), fa("vesting_shares", d.VestingShares)}}
}

func opProducerRewardOp(producer string, vests int64) *operation {
	return &operation{Name: "producer_reward", Num: numProducerReward, Virtual: true, impacted: dedupe(producer), fields: []field{
		fstr("producer", producer), fa("vesting_shares", asset(vests, VESTS))}}
}

// writeOp writes an operation: {"type":"x_operation","value":{…}} with NAI assets, or in
// legacy (condenser_api) form ["x", {…}] with legacy asset strings.
func writeOp(w *jw, op *operation, legacy bool) {
	if legacy {
		w.arrBegin()
		w.str(op.Name)
	} else {
		w.objBegin()
		w.kstr("type", op.Name+"_operation")
		w.key("value")
	}
	w.objBegin()
	for i := range op.fields {
		f := &op.fields[i]
		w.key(f.k)
		switch f.kind {
		case fStr:
			w.str(f.s)
		case fNum:
			w.num(f.i)
		case fI64:
			w.i64(f.i)
		case fAsset:
			writeAsset(w, f.a, legacy)
		case fBool:
			w.boolean(f.b)
		case fAuth:
			writeAuthority(w, f.auth)
		case fStrs:
			w.arrBegin()
			for _, s := range f.strs {
				w.str(s)
			}
			w.arrEnd()
		case fTime:
			w.time(f.t)
		}
	}
	w.objEnd()
	if legacy {
		w.arrEnd()
	} else {
		w.objEnd()
	}
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
// arrays of [name, weight] pairs as hived emits them, not maps.
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
