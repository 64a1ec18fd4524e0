// Package clientip finds the client address of an HTTP request: the TCP
// peer, or the address a trusted reverse proxy names in a header, walked
// from right to left so that a client cannot choose its own. Key reduces
// an address to what limits count (IPv6 by its /64). A leaf: the Guard,
// the gateway's listener and auth's rate limit all name clients by it.
package clientip

import (
	"net/http"
	"net/netip"
	"strings"
)

// Options tell how a request's client address is found.
type Options struct {
	// TrustedProxyHeader names a header set by a reverse proxy in front of
	// hivegate, such as X-Forwarded-For or X-Real-IP: a comma-separated
	// list of addresses, each proxy appending the one it received the
	// request from. Empty (the default) means the header is ignored and
	// the client is the TCP peer.
	TrustedProxyHeader string
	// TrustedProxies are the addresses of those proxies. The header is read
	// only when the TCP peer is one of them, from right to left, skipping
	// trusted addresses; the first untrusted one is the client (so a client
	// cannot choose its address by sending the header itself). nil means
	// DefaultTrustedProxies.
	TrustedProxies []netip.Prefix
}

// DefaultTrustedProxies are the loopback and private ranges, where reverse
// proxies usually live.
var DefaultTrustedProxies = []netip.Prefix{
	netip.MustParsePrefix("127.0.0.0/8"),
	netip.MustParsePrefix("::1/128"),
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("fc00::/7"),
}

// Resolver finds the client address of requests, by its Options.
type Resolver struct {
	header  string
	trusted []netip.Prefix
}

// New returns the Resolver of o.
func New(o Options) Resolver {
	c := Resolver{header: http.CanonicalHeaderKey(strings.TrimSpace(o.TrustedProxyHeader)), trusted: o.TrustedProxies}
	if c.trusted == nil {
		c.trusted = DefaultTrustedProxies
	}
	return c
}

// Addr returns the client address of r as the rate limiter keys it
// (see Options); IPv6 addresses are reduced to their /64, the
// block one subscriber usually holds. A request whose address cannot be
// read gets the zero Addr (all such requests share one key).
func Addr(r *http.Request, o Options) netip.Addr { return New(o).of(r) }

func (c Resolver) of(r *http.Request) netip.Addr { return key(c.Client(r)) }

// Client returns the client address of r, whole (not reduced to its /64).
func (c Resolver) Client(r *http.Request) netip.Addr {
	addr := parseHop(r.RemoteAddr)
	if c.header == "" || !c.Trusted(addr) {
		return addr
	}
	vals := r.Header[c.header]
	for i := len(vals) - 1; i >= 0; i-- {
		v := vals[i]
		for v != "" {
			hop := v
			if j := strings.LastIndexByte(v, ','); j >= 0 {
				hop, v = v[j+1:], v[:j]
			} else {
				v = ""
			}
			hop = strings.TrimSpace(hop)
			if hop == "" {
				continue
			}
			a := parseHop(hop)
			if !a.IsValid() {
				// Not an address: the walk ends at the last trusted hop.
				return addr
			}
			if !c.Trusted(a) {
				return a
			}
			addr = a
		}
	}
	return addr
}

// Trusted reports whether a is one of the trusted proxies' addresses.
func (c Resolver) Trusted(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	for _, p := range c.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseHop reads "ip", "ip:port" or "[ip]:port"; the zero Addr when it is
// none of them.
func parseHop(s string) netip.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap()
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().WithZone("")
	}
	return netip.Addr{}
}

// key is the rate limiter's key of an address: IPv6 by /64.
func key(a netip.Addr) netip.Addr {
	if a.Is6() {
		if p, err := a.WithZone("").Prefix(64); err == nil {
			return p.Addr()
		}
	}
	return a
}

// Key is the address a client is counted by: a itself, or its /64 for
// IPv6 (the block one subscriber usually holds), as the rate limiter and
// the Guard's per-client cap count it.
func Key(a netip.Addr) netip.Addr { return key(a.Unmap()) }
