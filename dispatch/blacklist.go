package dispatch

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/router"
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

// BlacklistedAccount looks for an account that listed reports in the
// params of a broadcast call (a transaction, positional [trx] or named
// {"trx": trx}, or a block of them) and returns the first one found. Every
// string under an account field (see accountFields) is checked wherever it
// sits, and every occurrence of a duplicated member counts, so neither the
// params shape nor a repeated key hides an account. Params that are not
// valid JSON (the front ends never pass such) report nothing.
func BlacklistedAccount(params json.RawMessage, listed func(name string) bool) (string, bool) {
	_, name, found := AccountField(params, func(_, name string) bool { return listed(name) })
	return name, found
}

// AccountField is the extractor behind BlacklistedAccount, with the field
// each account is named under: it calls visit for every string under an
// account field of params (a transaction, an operation, a list of
// operations; see accountFields), in document order, until visit returns
// true, and returns that field and name. The auth service uses it to find
// every signer an operation names.
func AccountField(params json.RawMessage, visit func(field, name string) bool) (field, name string, found bool) {
	if len(params) == 0 {
		return "", "", false
	}
	type frame struct {
		obj       bool
		expectKey bool   // obj: the next string is a member name
		field     string // obj: the current member, when it is an account field
		names     string // array: the account field its strings (and nested arrays' strings) are names of
	}
	stack := make([]frame, 0, 16)
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.UseNumber()
	// valueDone marks the end of a member's value in the enclosing object.
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].obj {
			stack[n-1].expectKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", "", false
		}
		var top *frame
		if n := len(stack); n > 0 {
			top = &stack[n-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, frame{obj: true, expectKey: true})
			case '[':
				names := ""
				switch {
				case top != nil && top.obj:
					names = top.field
				case top != nil:
					names = top.names
				}
				stack = append(stack, frame{names: names})
			default:
				stack = stack[:len(stack)-1]
				if len(stack) == 0 {
					return "", "", false
				}
				valueDone()
			}
		case string:
			switch {
			case top == nil:
				return "", "", false
			case top.obj && top.expectKey:
				top.expectKey, top.field = false, ""
				if accountFields[t] {
					top.field = t
				}
				continue
			case top.obj && top.field != "":
				if visit(top.field, t) {
					return top.field, t, true
				}
			case !top.obj && top.names != "":
				if visit(top.names, t) {
					return top.names, t, true
				}
			}
			valueDone()
		default:
			if top == nil {
				return "", "", false
			}
			valueDone()
		}
	}
}

// screen refuses a broadcast call that involves an account of
// limits.blacklist_accounts (compared without regard to case), before it
// goes upstream. It reads the blacklist of the router's config, so a config
// reload applies at once.
func (d *Dispatcher) screen(c *router.Call, rt router.Route) (Result, bool) {
	if !rt.Broadcast {
		return Result{}, false
	}
	list := d.Router().Config().Limits.BlacklistAccounts
	if len(list) == 0 {
		return Result{}, false
	}
	name, found := BlacklistedAccount(c.Params, func(s string) bool {
		for _, b := range list {
			if strings.EqualFold(s, b) {
				return true
			}
		}
		return false
	})
	if !found {
		return Result{}, false
	}
	d.log.Info("broadcast refused: blacklisted account", "key", keyPath(c.Key), "account", name)
	return Result{
		Err:   jsonrpc.NewError(jsonrpc.KindBlacklistedAccount, name, nil),
		Cache: CacheBypass, Route: rt.Matched.URL, Key: c.Key,
	}, true
}
