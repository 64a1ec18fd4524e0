package server

import (
	"log/slog"
	"sync"
)

// DriftObserver (Options.Drift) counts the keys of a
// node's answers that the typed message does not know (issue 28 item 5):
// a node whose API grew or changed. method is the JSON-RPC method; it is
// called once per unknown key of each decoded answer.
type DriftObserver interface {
	UnknownKey(method, key string)
}

// maxDriftLogged bounds how many distinct method+key pairs are remembered
// (and logged once each): a node answering ever new keys cannot grow the
// set or the log without bound.
const maxDriftLogged = 512

// driftLog reports unknown keys: each to the observer's counter, and the
// first of each method and key to the log.
type driftLog struct {
	log *slog.Logger
	obs DriftObserver // nil: not counted

	mu   sync.Mutex
	seen map[string]struct{}
}

func newDriftLog(log *slog.Logger, obs DriftObserver) *driftLog {
	return &driftLog{log: log, obs: obs, seen: map[string]struct{}{}}
}

// unknown reports the unknown keys of one answer of method (paths such as
// "accounts[0].future_field"; array indexes are dropped so that one key
// is one entry).
func (d *driftLog) unknown(method, procedure string, keys []string) {
	for _, k := range keys {
		k = stripIndexes(k)
		if d.obs != nil {
			d.obs.UnknownKey(method, k)
		}
		d.mu.Lock()
		_, old := d.seen[method+" "+k]
		full := len(d.seen) >= maxDriftLogged
		if !old && !full {
			d.seen[method+" "+k] = struct{}{}
		}
		d.mu.Unlock()
		if !old && !full {
			d.log.Warn("a node's answer has a key the typed API does not know (dropped from the typed response; JsonRpcService.Call keeps it)",
				"method", method, "procedure", procedure, "key", k)
		}
	}
}

// stripIndexes removes "[n]" array indexes from a key path.
func stripIndexes(path string) string {
	out := make([]byte, 0, len(path))
	skip := false
	for i := 0; i < len(path); i++ {
		switch c := path[i]; {
		case c == '[':
			skip = true
		case c == ']':
			skip = false
		case !skip:
			out = append(out, c)
		}
	}
	return string(out)
}
