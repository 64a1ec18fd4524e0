package hivetx

import (
	"errors"
	"fmt"
	"strings"
)

// opSchema is one operation type: its id in hived's operation
// static_variant, its names, its fields in FC_REFLECT order, and the
// accounts whose authority it needs.
type opSchema struct {
	id     uint32
	name   string // condenser's name: "vote"
	fields []field
	// auths returns the accounts whose active, owner and posting
	// authorities the operation requires (hived's get_required_*).
	auths func(o *Operation) Required
}

// Required lists the accounts whose authorities an operation needs, by
// role.
type Required struct {
	Active, Owner, Posting []string
}

func (r *Required) add(o Required) {
	r.Active = append(r.Active, o.Active...)
	r.Owner = append(r.Owner, o.Owner...)
	r.Posting = append(r.Posting, o.Posting...)
}

func postingOf(name string) func(o *Operation) Required {
	return func(o *Operation) Required { return Required{Posting: []string{o.String(name)}} }
}

func activeOf(name string) func(o *Operation) Required {
	return func(o *Operation) Required { return Required{Active: []string{o.String(name)}} }
}

// Field constructors keep the table readable.
func str(n string, aliases ...string) field { return field{name: n, aliases: aliases, kind: kString} }
func asset(n string, aliases ...string) field {
	return field{name: n, aliases: aliases, kind: kAsset}
}
func u16(n string, aliases ...string) field { return field{name: n, aliases: aliases, kind: kU16} }
func u32(n string) field                    { return field{name: n, kind: kU32} }
func boolean(n string) field                { return field{name: n, kind: kBool} }
func auth(n string) field                   { return field{name: n, kind: kAuthority} }
func optAuth(n string) field                { return field{name: n, kind: kAuthority, opt: true} }
func pubkey(n string) field                 { return field{name: n, kind: kPublicKey} }
func names(n string) field                  { return field{name: n, kind: kNameSet, def: emptyNames} }
func extensions() field                     { return field{name: "extensions", kind: kExtensions, def: emptyList} }

var legacyChainProperties = []field{
	asset("account_creation_fee"),
	u32("maximum_block_size"),
	u16("hbd_interest_rate", "sbd_interest_rate"),
}

var priceFields = []field{asset("base"), asset("quote")}

// operations is the table of the operations hivegate reads, packs and
// signs or checks: every operation HiveSigner's posting scope allows, and
// the ones in the recorded mainnet transactions the tests check ids and
// signatures of.
var operations = []*opSchema{
	{id: 0, name: "vote", fields: []field{str("voter"), str("author"), str("permlink"), {name: "weight", kind: kI16}},
		auths: postingOf("voter")},
	{id: 1, name: "comment", fields: []field{str("parent_author"), str("parent_permlink"), str("author"), str("permlink"),
		str("title"), str("body"), str("json_metadata")}, auths: postingOf("author")},
	{id: 2, name: "transfer", fields: []field{str("from"), str("to"), asset("amount"), str("memo")}, auths: activeOf("from")},
	{id: 3, name: "transfer_to_vesting", fields: []field{str("from"), str("to"), asset("amount")}, auths: activeOf("from")},
	{id: 4, name: "withdraw_vesting", fields: []field{str("account"), asset("vesting_shares")}, auths: activeOf("account")},
	{id: 5, name: "limit_order_create", fields: []field{str("owner"), u32("orderid"), asset("amount_to_sell"),
		asset("min_to_receive"), boolean("fill_or_kill"), {name: "expiration", kind: kTime}}, auths: activeOf("owner")},
	{id: 6, name: "limit_order_cancel", fields: []field{str("owner"), u32("orderid")}, auths: activeOf("owner")},
	{id: 7, name: "feed_publish", fields: []field{str("publisher"), {name: "exchange_rate", kind: kStruct, sub: priceFields}},
		auths: activeOf("publisher")},
	{id: 8, name: "convert", fields: []field{str("owner"), u32("requestid"), asset("amount")}, auths: activeOf("owner")},
	{id: 9, name: "account_create", fields: []field{asset("fee"), str("creator"), str("new_account_name"), auth("owner"),
		auth("active"), auth("posting"), pubkey("memo_key"), str("json_metadata")}, auths: activeOf("creator")},
	{id: 10, name: "account_update", fields: []field{str("account"), optAuth("owner"), optAuth("active"), optAuth("posting"),
		pubkey("memo_key"), str("json_metadata")}, auths: func(o *Operation) Required {
		if o.Get("owner") != nil {
			return Required{Owner: []string{o.String("account")}}
		}
		return Required{Active: []string{o.String("account")}}
	}},
	{id: 11, name: "witness_update", fields: []field{str("owner"), str("url"), pubkey("block_signing_key"),
		{name: "props", kind: kStruct, sub: legacyChainProperties}, asset("fee")}, auths: activeOf("owner")},
	{id: 12, name: "account_witness_vote", fields: []field{str("account"), str("witness"), boolean("approve")},
		auths: activeOf("account")},
	{id: 13, name: "account_witness_proxy", fields: []field{str("account"), str("proxy")}, auths: activeOf("account")},
	{id: 14, name: "pow", fields: []field{str("worker_account"), {name: "block_id", kind: kHexFixed, size: 20},
		{name: "nonce", kind: kU64}, {name: "work", kind: kStruct, sub: []field{pubkey("worker"),
			{name: "input", kind: kHexFixed, size: 32}, {name: "signature", kind: kHexFixed, size: 65},
			{name: "work", kind: kHexFixed, size: 32}}},
		{name: "props", kind: kStruct, sub: legacyChainProperties}},
		auths: func(*Operation) Required { return Required{} }},
	{id: 15, name: "custom", fields: []field{names("required_auths"), u16("id"), {name: "data", kind: kHexVar}},
		auths: func(o *Operation) Required { return Required{Active: o.Strings("required_auths")} }},
	{id: 17, name: "delete_comment", fields: []field{str("author"), str("permlink")}, auths: postingOf("author")},
	{id: 18, name: "custom_json", fields: []field{names("required_auths"), names("required_posting_auths"), str("id"), str("json")},
		auths: func(o *Operation) Required {
			return Required{Active: o.Strings("required_auths"), Posting: o.Strings("required_posting_auths")}
		}},
	{id: 19, name: "comment_options", fields: []field{str("author"), str("permlink"), asset("max_accepted_payout"),
		u16("percent_hbd", "percent_steem_dollars"), boolean("allow_votes"), boolean("allow_curation_rewards"),
		{name: "extensions", kind: kBeneficiaries, def: func() any { return [][]Beneficiary{} }}},
		auths: postingOf("author")},
	{id: 20, name: "set_withdraw_vesting_route", fields: []field{str("from_account"), str("to_account"), u16("percent"),
		boolean("auto_vest")}, auths: activeOf("from_account")},
	{id: 22, name: "claim_account", fields: []field{str("creator"), asset("fee"), extensions()}, auths: activeOf("creator")},
	{id: 32, name: "transfer_to_savings", fields: []field{str("from"), str("to"), asset("amount"), str("memo")},
		auths: activeOf("from")},
	{id: 33, name: "transfer_from_savings", fields: []field{str("from"), u32("request_id"), str("to"), asset("amount"),
		str("memo")}, auths: activeOf("from")},
	{id: 34, name: "cancel_transfer_from_savings", fields: []field{str("from"), u32("request_id")}, auths: activeOf("from")},
	{id: 39, name: "claim_reward_balance", fields: []field{str("account"), asset("reward_hive", "reward_steem"),
		asset("reward_hbd", "reward_sbd"), asset("reward_vests")}, auths: postingOf("account")},
	{id: 40, name: "delegate_vesting_shares", fields: []field{str("delegator"), str("delegatee"), asset("vesting_shares")},
		auths: activeOf("delegator")},
	{id: 43, name: "account_update2", fields: []field{str("account"), optAuth("owner"), optAuth("active"), optAuth("posting"),
		{name: "memo_key", kind: kPublicKey, opt: true}, {name: "json_metadata", kind: kString, def: func() any { return "" }},
		{name: "posting_json_metadata", kind: kString, def: func() any { return "" }}, extensions()},
		auths: func(o *Operation) Required {
			acct := []string{o.String("account")}
			switch {
			case o.Get("owner") != nil:
				return Required{Owner: acct}
			case o.Get("active") != nil || o.Get("posting") != nil || o.Get("memo_key") != nil || o.String("json_metadata") != "":
				return Required{Active: acct}
			}
			return Required{Posting: acct}
		}},
}

var opsByName = func() map[string]*opSchema {
	m := make(map[string]*opSchema, len(operations))
	for _, s := range operations {
		m[s.name] = s
	}
	return m
}()

// ErrUnsupportedOperation is returned for an operation this package does
// not know; its message names the operation.
var ErrUnsupportedOperation = errors.New("unsupported operation")

// Operation is one decoded operation.
type Operation struct {
	schema *opSchema
	values []any
}

// NewOperation builds an operation from its condenser name ("vote") and
// its fields as JSON values would decode them (strings, json.Number or
// numeric strings for integers, "1.000 HIVE" assets, ...).
func NewOperation(name string, fields map[string]any) (Operation, error) {
	s, ok := opsByName[strings.TrimSuffix(name, "_operation")]
	if !ok {
		return Operation{}, fmt.Errorf("%w: %s", ErrUnsupportedOperation, name)
	}
	vals, err := decodeFields(s.fields, fields)
	if err != nil {
		return Operation{}, fmt.Errorf("%s: %w", s.name, err)
	}
	return Operation{schema: s, values: vals}, nil
}

// parseOperation reads either JSON shape of an operation.
func parseOperation(v any) (Operation, error) {
	switch x := v.(type) {
	case []any:
		if len(x) == 2 {
			name, ok := x[0].(string)
			fields, ok2 := x[1].(map[string]any)
			if ok && ok2 {
				return NewOperation(name, fields)
			}
		}
	case map[string]any:
		name, ok := x["type"].(string)
		fields, ok2 := x["value"].(map[string]any)
		if ok && ok2 && len(x) == 2 {
			return NewOperation(name, fields)
		}
	}
	return Operation{}, errors.New(`operation: want ["name", {...}] or {"type": "name_operation", "value": {...}}`)
}

// Name is the operation's condenser name ("vote", "custom_json").
func (o Operation) Name() string { return o.schema.name }

// ID is the operation's tag in hived's operation static_variant.
func (o Operation) ID() uint32 { return o.schema.id }

// Get returns a field's decoded value (nil when absent or unknown):
// string, bool, the integer types of the field, Asset, PublicKey,
// Authority, []string for name sets, time.Time.
func (o Operation) Get(name string) any {
	for i := range o.schema.fields {
		if o.schema.fields[i].name == name {
			return o.values[i]
		}
	}
	return nil
}

// String returns a string field ("" when absent or not a string).
func (o Operation) String(name string) string {
	s, _ := o.Get(name).(string)
	return s
}

// Strings returns a name-set field (nil when absent).
func (o Operation) Strings(name string) []string {
	s, _ := o.Get(name).([]string)
	return s
}

// Required returns the accounts whose authorities the operation needs.
func (o Operation) Required() Required { return o.schema.auths(&o) }

// appendBinary packs the operation as a static_variant member: its tag,
// then its fields.
func (o Operation) appendBinary(b []byte) []byte {
	b = appendVarint32(b, o.schema.id)
	for i := range o.schema.fields {
		b = o.schema.fields[i].appendBinary(b, o.values[i])
	}
	return b
}

// AppendJSON writes the operation in condenser's shape, ["vote", {...}].
func (o Operation) AppendJSON(b []byte) []byte {
	b = appendJSONString(append(b, '['), o.schema.name)
	b = appendJSONFields(append(b, ','), o.schema.fields, o.values)
	return append(b, ']')
}

// MarshalJSON implements json.Marshaler (condenser's shape).
func (o Operation) MarshalJSON() ([]byte, error) { return o.AppendJSON(nil), nil }
