package dispatch

import (
	"bytes"
	"encoding/json"
	"math"

	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/router"
)

// accountHistoryLimit refuses a get_account_history call (of any api:
// condenser_api's [account, start, limit], account_history_api's
// {"account", "start", "limit"}) whose limit is over
// limits.account_history_limit, before it goes upstream, with jussi's
// error 1701 (jussi's validators.limit_account_history_count_request). A
// limit that is not a number is left for the node to judge. It reads the
// limit of the router's config, so a config reload applies at once.
func (d *Dispatcher) accountHistoryLimit(c *router.Call, rt router.Route) (Result, bool) {
	if c.Method != "get_account_history" {
		return Result{}, false
	}
	max := d.Router().Config().Limits.AccountHistoryLimit
	if max <= 0 {
		return Result{}, false
	}
	asked, ok := historyLimit(c.Params)
	if !ok || asked <= float64(max) {
		return Result{}, false
	}
	n := int64(math.Min(asked, math.MaxInt64))
	if float64(n) < asked {
		n++ // 100.5 is over 100: say 101, not 100
	}
	return Result{
		Err:   jsonrpc.NewAccountHistoryLimitError(int64(max), n),
		Cache: CacheBypass, Route: rt.Matched.URL, Key: c.Key,
	}, true
}

// historyLimit reads the limit of get_account_history params: the third
// element of a list, or the "limit" member of an object.
func historyLimit(params json.RawMessage) (float64, bool) {
	p := bytes.TrimLeft(params, " \t\r\n")
	if len(p) == 0 {
		return 0, false
	}
	var raw json.RawMessage
	switch p[0] {
	case '[':
		var list []json.RawMessage
		if json.Unmarshal(p, &list) != nil || len(list) < 3 {
			return 0, false
		}
		raw = list[2]
	case '{':
		var obj struct {
			Limit json.RawMessage `json:"limit"`
		}
		if json.Unmarshal(p, &obj) != nil || obj.Limit == nil {
			return 0, false
		}
		raw = obj.Limit
	default:
		return 0, false
	}
	var v float64
	if json.Unmarshal(raw, &v) != nil {
		return 0, false
	}
	return v, true
}
