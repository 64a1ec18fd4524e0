package router

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hivegate/hivegate/config"
)

// matchRef is the per-section walk Resolve made before the tries were
// merged (routetrie.go), kept as the reference the merged walk is tested
// against. It returns the most specific value for a call's segments and params,
// with the config key that matched; ok is false when nothing matches.
func (t *trie[T]) matchRef(segs []string, params *requestParams) (v T, key string, ok bool) {
	n := &t.root
	for i, s := range segs {
		c := n.children[s]
		if c == nil {
			break
		}
		n = c
		if c.has {
			v, key, ok = c.value, c.key, true
		}
		if i == len(segs)-1 && len(c.params) > 0 {
			if form, valid := params.matchForm(); valid {
				for _, p := range c.params {
					if bytes.Equal(form, p.want) {
						return p.value, p.key, true
					}
				}
			}
		}
	}
	return v, key, ok
}

// mergedConfig has keys at every depth, params= keys in several sections,
// and sections whose keys stop at different depths.
const mergedConfig = `
backends:
  a: http://127.0.0.1:1
  b: http://127.0.0.1:2
urls:
  appbase: a
  appbase.condenser_api.get_block: b
  appbase.condenser_api.get_block.params=[1]: a
  bridge: b
  hived.database_api: a
ttls:
  appbase: 3
  appbase.condenser_api: 5
  appbase.condenser_api.get_block.params=[2]: NO_EXPIRE
  appbase.condenser_api.get_block.params=[1.0]: NO_CACHE
  bridge.get_discussion: 9
timeouts:
  appbase.condenser_api.get_block: 7
  bridge: 4
  bridge.get_discussion.params={"author":"x","permlink":"y"}: 1
retries:
  hived: 2
  appbase.condenser_api.get_block.params=[1]: 1
`

// FuzzMergedRoutes checks that one walk down the merged tries finds what
// walking each section's trie finds.
func FuzzMergedRoutes(f *testing.F) {
	for _, seed := range []struct{ method, params string }{
		{"condenser_api.get_block", `[1]`}, {"condenser_api.get_block", `[2]`}, {"condenser_api.get_block", `[1.0]`},
		{"condenser_api.get_accounts", `[["a"]]`}, {"bridge.get_discussion", `{"permlink":"y","author":"x"}`},
		{"bridge.get_post", ``}, {"hived.database_api.get_block", `[1]`}, {"get_block", `[1]`}, {"nowhere.x", `[]`},
	} {
		f.Add(seed.method, []byte(seed.params))
	}
	cfg, err := config.Parse("merged.yaml", []byte(mergedConfig))
	if err != nil {
		f.Fatal(err)
	}
	r, err := New(cfg)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, method string, params []byte) {
		var p json.RawMessage
		if len(params) > 0 {
			p = params
		}
		c, err := r.Parse(method, p)
		if err != nil {
			return
		}
		var buf [3]string
		segs := c.appendSegments(buf[:0])
		merged := r.routes.match(segs, &requestParams{raw: c.Params})
		check := func(section string, got, want any, gotKey, wantKey string, gotOK, wantOK bool) {
			if got != want || gotKey != wantKey || gotOK != wantOK {
				t.Fatalf("%s of %s: merged walk %v %q %v, section walk %v %q %v", section, c.Key, got, gotKey, gotOK, want, wantKey, wantOK)
			}
		}
		v, k, ok := r.urls.matchRef(segs, &requestParams{raw: c.Params})
		check("url", merged.url.v, v, merged.url.key, k, merged.url.ok, ok)
		ttl, k, ok := r.ttls.matchRef(segs, &requestParams{raw: c.Params})
		check("ttl", merged.ttl.v, ttl, merged.ttl.key, k, merged.ttl.ok, ok)
		to, k, ok := r.timeouts.matchRef(segs, &requestParams{raw: c.Params})
		check("timeout", merged.timeout.v, to, merged.timeout.key, k, merged.timeout.ok, ok)
		n, k, ok := r.retries.matchRef(segs, &requestParams{raw: c.Params})
		check("retries", merged.retries.v, n, merged.retries.key, k, merged.retries.ok, ok)
	})
}
