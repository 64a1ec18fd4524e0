package dispatch

import (
	"encoding/json"
	"strings"

	"github.com/hivegate/hivegate/hivetx"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/router"
)

// BlacklistedAccount looks for an account that listed reports in the
// params of a broadcast call (a transaction, positional [trx] or named
// {"trx": trx}, or a block of them) and returns the first one found. Every
// string under an account field (see hivetx.AccountField) is checked
// wherever it sits, and every occurrence of a duplicated member counts, so neither the
// params shape nor a repeated key hides an account. Names are compared as
// decoded text (jsonwire.Unquote), so an escaped name counts. The params
// are read once, with jsonwire; the walk stops at the first listed name,
// or where params stop being valid JSON (a name read before that point
// still counts; the front ends never pass invalid params).
func BlacklistedAccount(params json.RawMessage, listed func(name string) bool) (string, bool) {
	_, name, found := hivetx.AccountField(params, func(_, name string) bool { return listed(name) })
	return name, found
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
