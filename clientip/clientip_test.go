package clientip_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/hivegate/hivegate/clientip"
)

func TestClientAddr(t *testing.T) {
	t.Parallel()
	loopbackProxy := clientip.Options{TrustedProxyHeader: "X-Forwarded-For"}
	cases := []struct {
		name   string
		remote string
		header []string // lines of the configured header (X-Forwarded-For when none)
		opts   clientip.Options
		want   string
	}{
		{"peer, no header configured", "198.51.100.7:5555", []string{"203.0.113.1"}, clientip.Options{}, "198.51.100.7"},
		{"trusted peer, one hop", "127.0.0.1:5555", []string{"203.0.113.1"}, loopbackProxy, "203.0.113.1"},
		{"right-most untrusted hop", "127.0.0.1:5555", []string{"6.6.6.6, 203.0.113.1, 10.0.0.2"}, loopbackProxy, "203.0.113.1"},
		{"forged left part ignored", "10.1.1.1:80", []string{"1.2.3.4", "203.0.113.5"}, loopbackProxy, "203.0.113.5"},
		{"every hop trusted: left-most", "127.0.0.1:1", []string{"10.0.0.9, 192.168.1.1"}, loopbackProxy, "10.0.0.9"},
		{"untrusted peer: header ignored", "198.51.100.7:5555", []string{"203.0.113.1"}, loopbackProxy, "198.51.100.7"},
		{"garbage hop ends the walk", "127.0.0.1:1", []string{"203.0.113.1, unknown"}, loopbackProxy, "127.0.0.1"},
		{"hop with a port", "127.0.0.1:1", []string{"203.0.113.1:4444"}, loopbackProxy, "203.0.113.1"},
		{"IPv6 hop with a port, by /64", "[::1]:1", []string{"[2001:db8:1:2:3:4:5:6]:4444"}, loopbackProxy, "2001:db8:1:2::"},
		{"IPv6 peer by /64", "[2001:db8:aa:bb:1::2]:80", nil, clientip.Options{}, "2001:db8:aa:bb::"},
		{"IPv4-mapped peer", "[::ffff:198.51.100.7]:80", nil, clientip.Options{}, "198.51.100.7"},
		{"custom trusted list", "127.0.0.1:1", []string{"203.0.113.1"},
			clientip.Options{TrustedProxyHeader: "X-Forwarded-For", TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}, "127.0.0.1"},
		{"X-Real-IP, any spelling", "127.0.0.1:1", []string{"203.0.113.8"}, clientip.Options{TrustedProxyHeader: "x-real-ip"}, "203.0.113.8"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodPost, "/", nil)
			r.RemoteAddr = tc.remote
			name := "X-Forwarded-For"
			if tc.opts.TrustedProxyHeader != "" {
				name = tc.opts.TrustedProxyHeader
			}
			for _, h := range tc.header {
				r.Header.Add(name, h)
			}
			if got := clientip.Addr(r, tc.opts); got.String() != tc.want {
				t.Errorf("client %s, want %s", got, tc.want)
			}
		})
	}
}
