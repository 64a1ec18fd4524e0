package config

import (
	"fmt"
	"net/url"
	"strings"
)

// validate checks what no single key can check alone: backend URLs, urls that
// name backends, and settings that must be present.
func (c *Config) validate() error {
	names := map[string]bool{}
	for _, b := range c.Backends {
		if names[b.Name] {
			return &Error{Pos: b.Pos, Key: "backends." + b.Name, Err: fmt.Errorf("backend named twice")}
		}
		names[b.Name] = true
		if err := checkURL(b.URL); err != nil {
			return &Error{Pos: b.Pos, Key: "backends." + b.Name, Err: err}
		}
	}
	if len(c.URLs) == 0 {
		return &Error{Pos: Pos{File: c.Source}, Key: "urls", Err: fmt.Errorf("no urls: every method would be refused")}
	}
	seen := map[string]Pos{}
	for _, u := range c.URLs {
		if !names[u.Value] {
			return &Error{Pos: u.Pos, Key: "urls." + u.Key, Err: fmt.Errorf("unknown backend %q (backends: %s)", u.Value, strings.Join(c.backendNames(), ", "))}
		}
		if prev, dup := seen[u.Key]; dup {
			return &Error{Pos: u.Pos, Key: "urls." + u.Key, Err: fmt.Errorf("key also routed at %s", prev)}
		}
		seen[u.Key] = u.Pos
	}
	if c.DefaultNamespace == "" || strings.Contains(c.DefaultNamespace, ".") {
		return &Error{Pos: Pos{File: c.Source}, Key: "default_namespace", Err: fmt.Errorf("want one namespace name without dots, got %q", c.DefaultNamespace)}
	}
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
		return fmt.Errorf("bad URL %q: %v", raw, err)
	}
	switch u.Scheme {
	case "http", "https":
	case "ws", "wss":
		return fmt.Errorf("%s URLs are %w: use the node's http(s) address", u.Scheme, errNotSupportedYet)
	default:
		return fmt.Errorf("bad URL %q: want http:// or https://", raw)
	}
	if u.Host == "" {
		return fmt.Errorf("bad URL %q: no host", raw)
	}
	return nil
}

// IsBroadcastKey reports whether a method key (or method name) names a
// broadcast method: network_broadcast_api.*, condenser_api.broadcast_* and
// chain_api.push_*. These change chain state, so they are never cached,
// retried or coalesced, whatever a config says.
func IsBroadcastKey(key string) bool {
	return strings.Contains(key, "network_broadcast_api") ||
		strings.Contains(key, "condenser_api.broadcast_") ||
		strings.Contains(key, "chain_api.push_")
}
