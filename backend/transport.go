package backend

import (
	"crypto/tls"
	"net"
	"net/http"
	"net/url"
	"time"
)

// idleConnTimeout closes a backend connection left idle this long.
const idleConnTimeout = 90 * time.Second

// maxResponseHeaderBytes bounds the head of a backend's answer; a larger
// head is an invalid upstream response.
const maxResponseHeaderBytes = 64 << 10

// newTransport returns the HTTP client of one backend at u: net/http's
// Transport over hivegate's own dialer (conn.go), HTTP/1.1 only, at most
// opts.MaxConnsPerBackend connections (calls beyond wait for one, within
// their deadline), all of which may stay idle for reuse.
//
// The pool asks for gzip itself (Accept-Encoding) and decodes with
// klauspost/compress (Transport compression is off), so that the response
// cap counts the decoded bytes. Proxies from the environment are not used:
// a gateway calls the nodes its config names.
func newTransport(u *url.URL, opts Options) *http.Transport {
	return buildTransport(u, opts, false)
}

// newFreshTransport returns the client of resends that must go out on a
// connection of their own (Pool.attempt): each request is sent on a new
// connection, closed after its answer.
func newFreshTransport(u *url.URL, opts Options) *http.Transport {
	return buildTransport(u, opts, true)
}

func buildTransport(u *url.URL, opts Options, fresh bool) *http.Transport {
	d := &dialer{Dialer: net.Dialer{Timeout: opts.DialTimeout, KeepAlive: tcpKeepAlive}}
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	t := &http.Transport{
		DialContext:            d.DialContext,
		Protocols:              &protocols,
		MaxConnsPerHost:        opts.MaxConnsPerBackend,
		MaxIdleConns:           opts.MaxConnsPerBackend,
		MaxIdleConnsPerHost:    opts.MaxConnsPerBackend,
		IdleConnTimeout:        idleConnTimeout,
		TLSHandshakeTimeout:    opts.DialTimeout,
		MaxResponseHeaderBytes: maxResponseHeaderBytes,
		DisableCompression:     true,
		// A request up to 16 KiB leaves in one write (exchange.go); the
		// read buffer holds a typical answer's head and small body.
		WriteBufferSize:   16 << 10,
		ReadBufferSize:    16 << 10,
		DisableKeepAlives: fresh,
	}
	if u.Scheme == "https" {
		conf := &tls.Config{}
		if opts.TLSConfig != nil {
			conf = opts.TLSConfig.Clone()
		}
		if conf.ServerName == "" {
			conf.ServerName = u.Hostname()
		}
		conf.NextProtos = []string{"http/1.1"}
		t.TLSClientConfig = conf
	}
	return t
}
