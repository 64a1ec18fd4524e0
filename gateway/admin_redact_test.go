package gateway_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestAdminRedactsNodeURLs shows that node URLs with credentials (user
// and password, an API key in the query or as a path segment) are shown
// redacted by /admin/routes, /admin/route, /admin/health and
// /admin/nodes.
func TestAdminRedactsNodeURLs(t *testing.T) {
	t.Parallel()
	a, b := newFakeNode(t), newFakeNode(t)
	withCreds := func(n *fakeNode, path string) string {
		u, _ := url.Parse(n.srv.URL)
		u.User = url.UserPassword("apiuser", "pa55word")
		u.Path = path
		u.RawQuery = "api_key=k3ysecret"
		return u.String()
	}
	yaml := opsYAML(a, "")
	yaml = strings.Replace(yaml, "  hived: "+a.srv.URL+"\n",
		"  hived: "+withCreds(a, "/")+"\n  hivemind:\n    - "+withCreds(b, "/v1/3f9a0c1d2e4b5a6978cafe01")+"\n    - "+withCreds(a, "/")+"\n", 1)
	yaml = strings.Replace(yaml, "urls:\n  appbase: hived\n", "urls:\n  appbase: hived\n  bridge: hivemind\n", 1)
	o := startOps(t, yaml)
	secrets := []string{"apiuser", "pa55word", "k3ysecret", "3f9a0c1d2e4b5a6978cafe01"}
	for _, path := range []string{
		"/admin/routes",
		"/admin/route?method=condenser_api.get_block&params=%5B1%5D",
		"/admin/route?method=bridge.get_post&params=%7B%7D",
		"/admin/health",
		"/admin/nodes",
	} {
		status, body := o.adminReq("GET", path, "")
		if status != http.StatusOK && status != http.StatusServiceUnavailable {
			t.Fatalf("%s: %d %s", path, status, body)
		}
		for _, s := range secrets {
			if strings.Contains(string(body), s) {
				t.Errorf("%s shows %q:\n%s", path, s, body)
			}
		}
		if !strings.Contains(string(body), "xxxxx@127.0.0.1") || !strings.Contains(string(body), "api_key=REDACTED") {
			t.Errorf("%s does not show the redacted node URL:\n%s", path, body)
		}
	}
}

// TestLogsRedactNodeURLs shows that the logs name a failing node by its
// redacted URL: unreachable nodes, over HTTP and WebSocket, whose URLs
// carry a user, a password and an API key fail calls and LIB polls, and no
// log line, nor the client's answer, holds a secret.
func TestLogsRedactNodeURLs(t *testing.T) {
	t.Parallel()
	down := newFakeNode(t)
	down.srv.Close() // its port now refuses connections
	withCreds := func(scheme string) string {
		u, _ := url.Parse(down.srv.URL)
		u.Scheme = scheme
		u.User = url.UserPassword("apiuser", "pa55word")
		u.RawQuery = "api_key=k3ysecret"
		return u.String()
	}
	yaml := strings.Replace(opsYAML(down, ""), "  hived: "+down.srv.URL+"\n", "  hived: "+withCreds("http")+"\n  wsnode: "+withCreds("ws")+"\n", 1)
	yaml = strings.Replace(yaml, "urls:\n  appbase: hived\n", "urls:\n  appbase: hived\n  bridge: wsnode\n", 1)
	o := startOps(t, yaml)
	_, _, body := o.post(rpc(1, "condenser_api.get_block", "[1]"))
	_, _, wsBody := o.post(rpc(2, "bridge.get_post", "{}"))
	host := strings.TrimPrefix(down.srv.URL, "http://")
	waitFor(t, "log lines about both nodes", func() bool {
		l := o.logs.String()
		return strings.Contains(l, "POST http://xxxxx@"+host) && strings.Contains(l, "WS ws://xxxxx@"+host)
	})
	for _, s := range []string{"apiuser", "pa55word", "k3ysecret"} {
		if strings.Contains(o.logs.String(), s) {
			t.Errorf("the logs show %q:\n%s", s, o.logs.String())
		}
		if strings.Contains(string(body)+string(wsBody), s) {
			t.Errorf("the answers show %q: %s %s", s, body, wsBody)
		}
	}
}
