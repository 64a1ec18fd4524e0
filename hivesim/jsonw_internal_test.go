package hivesim

import (
	"encoding/json"
	"testing"
	"time"
)

// TestValueWritesByType: jw.value writes each Go type as hived does: small
// integer types plain, int64 and uint64 quoted beyond 2^53-1 (fc's rule
// for JavaScript clients), assets as NAI objects or, legacy, as strings,
// time_point_sec without a zone, authorities as [name, weight] pairs, and
// obj members in the order given (not sorted, as a map would be).
func TestValueWritesByType(t *testing.T) {
	t.Parallel()
	auth := Authority{WeightThreshold: 2, AccountAuths: []AuthWeight{{Name: "bob", Weight: 1}}}
	for _, tc := range []struct {
		name   string
		v      any
		legacy bool
		want   string
	}{
		{"plain numbers", obj{"a", 7, "b", uint16(65535), "c", uint32(1 << 31), "d", int16(-3)}, false,
			`{"a":7,"b":65535,"c":2147483648,"d":-3}`},
		{"int64 at and past 2^53-1", obj{"x", int64(1<<53 - 1), "y", int64(1 << 53), "z", int64(-(1 << 53))}, false,
			`{"x":9007199254740991,"y":"9007199254740992","z":"-9007199254740992"}`},
		{"uint64 past 2^53-1", []any{uint64(1 << 53)}, false, `["9007199254740992"]`},
		{"NAI asset", obj{"fee", asset(3000, HIVE)}, false, `{"fee":{"amount":"3000","precision":3,"nai":"@@000000021"}}`},
		{"legacy asset", obj{"fee", asset(3000, HIVE)}, true, `{"fee":"3.000 HIVE"}`},
		{"time, null, bool, strings", obj{"t", time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC), "n", nil, "b", true,
			"s", []string{"a", "<b>"}}, false, `{"t":"2030-01-02T03:04:05","n":null,"b":true,"s":["a","<b>"]}`},
		{"authority and nesting in order", obj{"z", obj{"auth", auth}, "a", func(w *jw) { w.raw([]byte("[]")) }}, false,
			`{"z":{"auth":{"weight_threshold":2,"account_auths":[["bob",1]],"key_auths":[]}},"a":[]}`},
	} {
		var w jw
		if arr, ok := tc.v.([]any); ok {
			w.arrBegin()
			for _, x := range arr {
				w.value(x, tc.legacy)
			}
			w.arrEnd()
		} else {
			w.value(tc.v, tc.legacy)
		}
		if got := string(w.b); got != tc.want || !json.Valid(w.b) {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
