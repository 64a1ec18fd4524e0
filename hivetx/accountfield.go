package hivetx

import (
	"bytes"
	"encoding/json"

	"github.com/hivegate/hivegate/jsonwire"
)

// accountFields are the operation fields that name an account acting or
// acted upon, across every Hive operation: the signers (required_*auths),
// the parties (from, to, author, voter, delegatee, ...) and the accounts an
// authority grants (account_auths pairs). Both operation shapes carry them
// by these names: legacy ["vote", {"voter": ...}] and typed
// {"type": "vote_operation", "value": {"voter": ...}}.
var accountFields = map[string]bool{
	"required_auths": true, "required_posting_auths": true, "required_active_auths": true,
	"required_owner_auths": true, "account_auths": true,
	"account": true, "owner": true, "creator": true, "new_account_name": true,
	"from": true, "to": true, "agent": true, "who": true, "receiver": true,
	"author": true, "parent_author": true, "voter": true,
	"delegator": true, "delegatee": true, "from_account": true, "to_account": true,
	"publisher": true, "reporter": true, "worker_account": true, "witness": true, "proxy": true,
	"recovery_account": true, "account_to_recover": true, "new_recovery_account": true,
	"reset_account": true, "account_to_reset": true, "current_reset_account": true,
	"proposal_owner": true, "control_account": true, "challenger": true, "challenged": true,
}

// AccountField finds the accounts Hive operations name, with the field
// each account is named under: it calls visit for every string under an
// account field of params (a transaction, an operation, a list of
// operations; see accountFields), in document order, until visit returns
// true, and returns that field and name. dispatch.BlacklistedAccount uses
// it to screen broadcasts against limits.blacklist_accounts; the auth
// service to find every signer an operation names.
func AccountField(params json.RawMessage, visit func(field, name string) bool) (field, name string, found bool) {
	if len(params) == 0 {
		return "", "", false
	}
	w := accountWalk{data: params, visit: visit}
	w.value(jsonwire.SkipSpace(params, 0), jsonwire.MaxDepth, "")
	return w.field, w.name, w.found
}

// accountWalk is one AccountField walk over data.
type accountWalk struct {
	data  []byte
	visit func(field, name string) bool
	field string
	name  string
	found bool
}

// value walks the value at data[i], nested at most depth levels, and
// returns the index after it; ok is false when the walk must stop (visit
// returned true, or data is not valid JSON). field is the account field
// the value's strings are names under, directly or in nested arrays, or
// "" when they are not names.
func (w *accountWalk) value(i, depth int, field string) (end int, ok bool) {
	data := w.data
	switch {
	case i < len(data) && data[i] == '{':
		it := jsonwire.Members(data, i, depth)
		for it.Next() {
			if end, ok = w.value(it.Offset(), it.Depth(), accountField(it.Name())); !ok {
				return end, false
			}
			it.SetValueEnd(end)
		}
		return it.End(), it.Err() == nil
	case i < len(data) && data[i] == '[':
		it := jsonwire.Elements(data, i, depth)
		for it.Next() {
			if end, ok = w.value(it.Offset(), it.Depth(), field); !ok {
				return end, false
			}
			it.SetValueEnd(end)
		}
		return it.End(), it.Err() == nil
	case field != "" && i < len(data) && data[i] == '"':
		end, _, err := jsonwire.ScanString(data, i)
		if err != nil {
			return end, false
		}
		if name := jsonwire.Unquote(data[i:end]); w.visit(field, name) {
			w.field, w.name, w.found = field, name, true
			return end, false
		}
		return end, true
	}
	end, err := jsonwire.Skip(data, i, depth)
	return end, err == nil
}

// accountField returns the member name lit (a raw literal) when it is one
// of accountFields, and "" otherwise.
func accountField(lit []byte) string {
	raw := lit[1 : len(lit)-1]
	if bytes.IndexByte(raw, '\\') < 0 {
		if accountFields[string(raw)] { // no allocation unless it is one
			return string(raw)
		}
		return ""
	}
	if name := jsonwire.Unquote(lit); accountFields[name] {
		return name
	}
	return ""
}
