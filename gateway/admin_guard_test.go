package gateway_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// adminWith sends a request to the admin listener with the given Host
// (empty: the listener's own address) and headers (name, value pairs).
func (o *opsGateway) adminWith(method, path, host string, headers ...string) (int, []byte) {
	o.t.Helper()
	req, err := http.NewRequest(method, o.admin.URL+path, nil)
	if err != nil {
		o.t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	status, _, body := o.do(req)
	return status, body
}

// appbaseTTL reads the TTL of the appbase key from the config in use.
func (o *opsGateway) appbaseTTL() string {
	o.t.Helper()
	for _, e := range o.gw.Config().TTLs {
		if e.Key == "appbase" {
			return e.Value.String()
		}
	}
	return ""
}

// TestAdminDNSRebinding shows the Host check of the admin listener: a page
// that rebinds its own name to 127.0.0.1 sends its name as Host and gets
// 421 on every endpoint, /metrics included, with or without admin_token,
// and reads nothing; loopback names and IP addresses are served.
func TestAdminDNSRebinding(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	o := startOps(t, opsYAML(node, ""))
	locked := startOps(t, opsYAML(node, "  admin_token: s3cret\n"))
	port := o.admin.Listener.Addr().String()
	port = port[strings.LastIndexByte(port, ':'):] // ":NNNN"
	endpoints := []struct{ method, path string }{
		{"GET", "/admin/health"},
		{"GET", "/metrics"},
		{"GET", "/admin/routes"},
		{"GET", "/admin/route?method=condenser_api.get_block&params=[1]"},
		{"POST", "/admin/reload"},
	}
	for _, ep := range endpoints {
		t.Run(ep.method+" "+ep.path, func(t *testing.T) {
			for _, host := range []string{"evil.example" + port, "evil.example", "localhost.evil.example" + port, "127.0.0.1.nip.io" + port} {
				status, body := o.adminWith(ep.method, ep.path, host)
				if status != http.StatusMisdirectedRequest || strings.Contains(string(body), "hived") || strings.Contains(string(body), "hivegate_build_info") {
					t.Errorf("Host %s: %d %.80q, want 421 and nothing of the gateway", host, status, body)
				}
				if status, _ := locked.adminWith(ep.method, ep.path, host, "Authorization", "Bearer s3cret"); status != http.StatusMisdirectedRequest {
					t.Errorf("Host %s with admin_token: %d, want 421", host, status)
				}
			}
			for _, host := range []string{"", "localhost" + port, "LocalHost", "127.0.0.1", "[::1]" + port, "[::1]"} {
				if status, body := o.adminWith(ep.method, ep.path, host); status != http.StatusOK {
					t.Errorf("Host %q: %d %s, want 200", host, status, body)
				}
			}
		})
	}
}

// TestAdminAllowedHosts shows hivegate.admin_allowed_hosts: a name it
// lists is served (the operator reaches the admin listener by that name),
// other names are not, and a reload changes the list.
func TestAdminAllowedHosts(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	o := startOps(t, opsYAML(node, "  admin_allowed_hosts: [admin.example.internal]\n"))
	for host, want := range map[string]int{
		"admin.example.internal":       http.StatusOK,
		"ADMIN.example.internal.:9090": http.StatusOK,
		"other.example.internal":       http.StatusMisdirectedRequest,
	} {
		if status, body := o.adminWith("GET", "/admin/health", host); status != want {
			t.Errorf("Host %s: %d %s, want %d", host, status, body, want)
		}
	}
	o.write(opsYAML(node, ""))
	if status, body := o.adminReq("POST", "/admin/reload", ""); status != http.StatusOK {
		t.Fatalf("reload: %d %s", status, body)
	}
	if status, _ := o.adminWith("GET", "/admin/health", "admin.example.internal"); status != http.StatusMisdirectedRequest {
		t.Errorf("a name dropped from admin_allowed_hosts: %d, want 421", status)
	}
}

// TestAdminCrossSite shows that a web page of another site cannot change
// the gateway through the admin listener: its POST /admin/reload, marked
// by the browser with Origin or Sec-Fetch-Site, gets 403, a form post
// without those headers gets 415, and the config is not reloaded; a
// request from the command line (no such headers) or from the admin
// listener's own origin reloads. GET stays open to the operator's browser.
func TestAdminCrossSite(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	o := startOps(t, opsYAML(node, ""))
	o.write(strings.Replace(opsYAML(node, ""), "  appbase: 60\n", "  appbase: 7\n", 1))
	self := strings.TrimPrefix(o.admin.URL, "http://")
	refused := []struct {
		name    string
		status  int
		headers []string
	}{
		{"Origin of another site", http.StatusForbidden, []string{"Origin", "https://evil.example"}},
		{"Origin null (sandboxed page)", http.StatusForbidden, []string{"Origin", "null"}},
		{"Origin of another port", http.StatusForbidden, []string{"Origin", "http://127.0.0.1:1"}},
		{"Sec-Fetch-Site cross-site", http.StatusForbidden, []string{"Sec-Fetch-Site", "cross-site"}},
		{"Sec-Fetch-Site same-site", http.StatusForbidden, []string{"Sec-Fetch-Site", "same-site", "Origin", "http://localhost:1"}},
		{"form post without Origin", http.StatusUnsupportedMediaType, []string{"Content-Type", "application/x-www-form-urlencoded"}},
		{"multipart form post", http.StatusUnsupportedMediaType, []string{"Content-Type", "multipart/form-data; boundary=x"}},
		{"text/plain post", http.StatusUnsupportedMediaType, []string{"Content-Type", "text/plain;charset=UTF-8"}},
	}
	for _, tc := range refused {
		status, body := o.adminWith("POST", "/admin/reload", "", tc.headers...)
		var resp map[string]string
		if status != tc.status || json.Unmarshal(body, &resp) != nil || resp["error"] == "" {
			t.Errorf("%s: %d %s, want %d with an error", tc.name, status, body, tc.status)
		}
		if got := o.appbaseTTL(); got != "60" {
			t.Fatalf("%s: the config was reloaded (appbase ttl %s)", tc.name, got)
		}
	}
	// GET is safe: the operator's browser may read the health page.
	if status, body := o.adminWith("GET", "/admin/health", "", "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"); status != http.StatusOK {
		t.Errorf("cross-site GET /admin/health: %d %s, want 200 (reads are stopped by the Host check and the browser's CORS)", status, body)
	}
	allowed := []struct {
		name    string
		headers []string
	}{
		{"curl", nil},
		{"same origin", []string{"Sec-Fetch-Site", "same-origin", "Origin", "http://" + self}},
		{"typed in the address bar", []string{"Sec-Fetch-Site", "none"}},
		{"JSON body", []string{"Content-Type", "application/json"}},
	}
	for i, tc := range allowed {
		ttl := []string{"60", "7"}[i%2]
		o.write(strings.Replace(opsYAML(node, ""), "  appbase: 60\n", "  appbase: "+ttl+"\n", 1))
		if status, body := o.adminWith("POST", "/admin/reload", "", tc.headers...); status != http.StatusOK {
			t.Errorf("%s: %d %s, want 200", tc.name, status, body)
		}
		if got := o.appbaseTTL(); got != ttl {
			t.Errorf("%s: appbase ttl %s after the reload, want %s", tc.name, got, ttl)
		}
	}
}
