package config

import (
	"fmt"
	"net/url"
	"strings"
)

// validate checks what no single key can check alone: backend URLs, urls that
// name backends, and settings that must be present.
// It first runs the checks of the sections read (d.checks), so that this
// is the one validation pass after decoding.
func (c *Config) validate(d *decoder) error {
	for _, check := range d.checks {
		if err := check(); err != nil {
			return err
		}
	}
	if w := c.ReplicaWarning(); w != "" { // auth.go
		c.Warnings = append(c.Warnings, w)
	}
	names := map[string]bool{}
	for _, b := range c.Backends {
		if names[b.Name] {
			return &Error{Pos: b.Pos, Key: "backends." + b.Name, Err: fmt.Errorf("backend named twice")}
		}
		names[b.Name] = true
		seenURL := map[string]bool{}
		for _, u := range b.NodeURLs() {
			if err := checkURL(u); err != nil {
				return &Error{Pos: b.Pos, Key: "backends." + b.Name, Err: err}
			}
			if seenURL[u] {
				return &Error{Pos: b.Pos, Key: "backends." + b.Name, Err: fmt.Errorf("node %s is listed twice", RedactURL(u))}
			}
			seenURL[u] = true
		}
	}
	for _, name := range c.Limits.NoUpstreamBatch {
		if !names[name] {
			return &Error{Pos: d.pos(d.keyAt("limits.no_upstream_batch")), Key: "limits.no_upstream_batch", Err: fmt.Errorf("unknown backend %q (backends: %s)", name, strings.Join(c.backendNames(), ", "))}
		}
	}
	if len(c.URLs) == 0 {
		return &Error{Pos: Pos{File: c.Source}, Key: "urls", Err: fmt.Errorf("no urls: every method would be refused")}
	}
	for _, u := range c.URLs {
		if !names[u.Value] {
			return &Error{Pos: u.Pos, Key: "urls." + u.Key, Err: fmt.Errorf("unknown backend %q (backends: %s)", u.Value, strings.Join(c.backendNames(), ", "))}
		}
	}
	if err := noDuplicates(c.URLs, "urls"); err != nil {
		return err
	}
	if err := noDuplicates(c.TTLs, "ttls"); err != nil {
		return err
	}
	if err := noDuplicates(c.Timeouts, "timeouts"); err != nil {
		return err
	}
	if err := noDuplicates(c.Retries, "retries"); err != nil {
		return err
	}
	if !validNamespace(c.DefaultNamespace) {
		return &Error{Pos: d.pos(d.at("default_namespace")), Key: "default_namespace", Err: fmt.Errorf("want one namespace name without dots, spaces or '=', got %q", c.DefaultNamespace)}
	}
	for _, ns := range c.TranslateToAppbase {
		if !validNamespace(ns) {
			return &Error{Pos: d.pos(d.at("translate_to_appbase")), Key: "translate_to_appbase", Err: fmt.Errorf("want namespace names without dots, spaces or '=', got %q", ns)}
		}
	}
	if err := c.checkEquivalents(); err != nil {
		return err
	}
	if err := c.checkQuotaApps(d); err != nil { // quota.go
		return err
	}
	c.warnTranslated(keysOf(c.URLs), "urls")
	c.warnTranslated(keysOf(c.TTLs), "ttls")
	c.warnTranslated(keysOf(c.Timeouts), "timeouts")
	c.warnTranslated(keysOf(c.Retries), "retries")
	for _, r := range c.Retries {
		if r.Value > 0 && IsBroadcastKey(r.Key) {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: retries.%s = %d: broadcast methods are never retried (a retried broadcast can be applied twice); the value is ignored", r.Pos, r.Key, r.Value))
		}
	}
	for _, t := range c.TTLs {
		if t.Value.Kind != TTLNoCache && IsBroadcastKey(t.Key) {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: ttls.%s = %s: broadcast methods are never cached; the value is ignored", t.Pos, t.Key, t.Value))
		}
	}
	return nil
}

type keyPos struct {
	key string
	pos Pos
}

func keysOf[T any](entries []Entry[T]) []keyPos {
	out := make([]keyPos, len(entries))
	for i, e := range entries {
		out[i] = keyPos{e.Key, e.Pos}
	}
	return out
}

// warnTranslated warns about keys under a translate_to_appbase namespace:
// such calls are keyed appbase.condenser_api.<method>, so these keys never
// match. One warning per key, at its line and naming it, so that an
// operator can find and fix each one.
func (c *Config) warnTranslated(keys []keyPos, section string) {
	for _, ns := range c.TranslateToAppbase {
		if ns == "appbase" {
			continue
		}
		for _, k := range keys {
			if k.key == ns || strings.HasPrefix(k.key, ns+".") {
				c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %s.%s never matches: %s is in translate_to_appbase, so its calls are keyed appbase.condenser_api.<method>", k.pos, section, k.key, ns))
			}
		}
	}
}

// noDuplicates reports a key given twice in one section (the legacy format
// can repeat a key across upstreams or within one list).
func noDuplicates[T any](entries []Entry[T], section string) error {
	seen := make(map[string]Pos, len(entries))
	for _, e := range entries {
		if prev, dup := seen[e.Key]; dup {
			return &Error{Pos: e.Pos, Key: section + "." + e.Key, Err: fmt.Errorf("duplicate key: also given at %s", prev)}
		}
		seen[e.Key] = e.Pos
	}
	return nil
}

// validNamespace reports whether s can be the first segment of a method key.
func validNamespace(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '.' || c == '=' {
			return false
		}
	}
	return true
}

func (c *Config) backendNames() []string {
	out := make([]string, len(c.Backends))
	for i, b := range c.Backends {
		out[i] = b.Name
	}
	return out
}

func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Parse's message quotes the URL, password and all.
		return fmt.Errorf("bad URL %q: does not parse", RedactURL(raw))
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
	default:
		return fmt.Errorf("bad URL %q: want http://, https://, ws:// or wss://", RedactURL(raw))
	}
	if u.Host == "" {
		return fmt.Errorf("bad URL %q: no host", RedactURL(raw))
	}
	return nil
}

// IsBroadcastKey reports whether a method key (or a method name such as
// "condenser_api.broadcast_transaction" or a bare "broadcast_transaction")
// names broadcast methods: network_broadcast_api.*, any method whose name
// starts with broadcast_, and chain_api.push_*. These change chain state, so
// they are never cached, retried or coalesced, whatever a config says. A
// params= suffix is ignored; segments are compared whole.
func IsBroadcastKey(key string) bool {
	if i := strings.Index(key, ".params="); i >= 0 {
		key = key[:i]
	}
	prev := ""
	for seg := range strings.SplitSeq(key, ".") {
		if IsBroadcastMethod(prev, seg) || seg == "network_broadcast_api" {
			return true
		}
		prev = seg
	}
	return false
}

// IsBroadcastMethod reports whether the method api.method changes chain state
// (see IsBroadcastKey); api may be empty.
func IsBroadcastMethod(api, method string) bool {
	return api == "network_broadcast_api" ||
		strings.HasPrefix(method, "broadcast_") ||
		api == "chain_api" && strings.HasPrefix(method, "push_")
}
