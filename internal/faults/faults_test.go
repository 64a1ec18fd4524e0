package faults_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/internal/faults"
)

// TestBackendFaults runs every backend fault through the whole JSON-RPC
// path (Guard, handler, dispatcher, backend pool) while a healthy route is
// under load: each fault gives its client one specific gateway error
// within the route's timeout (1 s; the client gives up after hangGuard),
// the healthy route's answers are all right, and nothing bad is cached —
// the second identical call goes upstream again.
func TestBackendFaults(t *testing.T) {
	t.Parallel()
	type faultCase struct {
		ns     string
		fault  faults.Fault // when url is empty
		url    string       // a fixed URL (no listener, blackhole)
		code   int
		status int
		kind   string
		detail string // part of the message
		count  bool   // the server sees the calls
		cancel bool   // the upstream request is abandoned at the timeout
	}
	noListener, err := faults.NoListenerURL()
	if err != nil {
		t.Fatal(err)
	}
	hole, err := faults.NewBlackhole()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hole.Close)
	cases := []faultCase{
		{ns: "nolistener", url: noListener, code: -32011, status: 502, kind: "upstream_unavailable", detail: "refused the connection"},
		{ns: "blackhole", url: hole.URL, code: -32010, status: 504, kind: "upstream_timeout", detail: "did not answer within 1s"},
		{ns: "reset", fault: faults.Reset, code: -32011, status: 502, kind: "upstream_unavailable", detail: "the connection", count: true},
		{ns: "resetmidbody", fault: faults.ResetMidBody, code: -32011, status: 502, kind: "upstream_unavailable", detail: "in the middle of its answer", count: true},
		{ns: "slowheaders", fault: faults.SlowHeaders, code: -32010, status: 504, kind: "upstream_timeout", detail: "did not answer within 1s", count: true, cancel: true},
		{ns: "slowbody", fault: faults.SlowBody, code: -32010, status: 504, kind: "upstream_timeout", detail: "did not answer within 1s", count: true, cancel: true},
		{ns: "status5xx", fault: faults.Status5xx, code: -32011, status: 502, kind: "upstream_unavailable", detail: "answered HTTP 503", count: true},
		{ns: "html", fault: faults.HTML, code: -32012, status: 502, kind: "invalid_upstream_response", detail: "not JSON", count: true},
		{ns: "truncated", fault: faults.TruncatedJSON, code: -32012, status: 502, kind: "invalid_upstream_response", detail: "answered", count: true},
		{ns: "wrongid", fault: faults.WrongID, code: -32012, status: 502, kind: "invalid_upstream_response", detail: "id", count: true},
		{ns: "huge", fault: faults.Huge, code: -32019, status: 502, kind: "upstream_response_too_large", detail: "more than 1 MiB", count: true},
	}
	healthy := newServer(t, faults.Healthy, faults.Options{})
	backends := map[string]string{"healthy": healthy.URL}
	servers := map[string]*faults.Server{}
	for _, c := range cases {
		if c.url != "" {
			backends[c.ns] = c.url
			continue
		}
		s := newServer(t, c.fault, faults.Options{HugeBytes: 2 << 20})
		servers[c.ns] = s
		backends[c.ns] = s.URL
	}
	extra := "ttls:\n"
	for ns := range backends {
		extra += "  " + ns + ": 60\n"
	}
	extra += "timeouts:\n"
	for ns := range backends {
		extra += "  " + ns + ": 1\n"
	}
	extra += "limits:\n  max_response_bytes: 1048576\n"
	g := startGateway(t, configYAML(backends, extra), faults.GatewayOptions{})

	// The healthy route under load for the whole run.
	stop := make(chan struct{})
	var load sync.WaitGroup
	var healthyCalls, healthyBad atomic.Int64
	for w := range 4 {
		load.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				params := `[` + strconv.Itoa(w) + `,` + strconv.Itoa(i) + `]`
				r := g.post(t, call(strconv.Itoa(i), "healthy.test_api.echo", params))
				got := r.single(t)
				healthyCalls.Add(1)
				if r.status != http.StatusOK || got.Error != nil || string(got.Result) != echo("test_api.echo", params) || string(got.ID) != strconv.Itoa(i) {
					healthyBad.Add(1)
					t.Errorf("healthy route: HTTP %d %s", r.status, r.body)
				}
			}
		})
	}

	t.Run("faults", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.ns, func(t *testing.T) {
				t.Parallel()
				method := c.ns + ".test_api.get"
				for i := range 2 {
					id := `"` + c.ns + strconv.Itoa(i) + `"`
					r := g.post(t, call(id, method, `["same"]`))
					got := r.single(t)
					if got.Error == nil {
						t.Fatalf("call %d: a result, want error %d: %s", i, c.code, r.body)
					}
					if got.Error.Code != c.code || got.Error.Data.Name != c.kind || r.status != c.status {
						t.Errorf("call %d: HTTP %d %s, want HTTP %d code %d %s", i, r.status, r.body, c.status, c.code, c.kind)
					}
					if !strings.Contains(got.Error.Message, c.detail) {
						t.Errorf("call %d: message %q does not say %q", i, got.Error.Message, c.detail)
					}
					if string(got.ID) != id {
						t.Errorf("call %d: id %s, want %s", i, got.ID, id)
					}
					if strings.Contains(string(r.body), "127.0.0.1") {
						t.Errorf("the answer shows a backend address: %s", r.body)
					}
					if cache := r.header.Get("X-Hivegate-Cache"); cache == "hit" {
						t.Errorf("call %d: a failure came from the cache", i)
					}
				}
				if s := servers[c.ns]; s != nil && c.count {
					if n := s.Calls(); n != 2 {
						t.Errorf("%d upstream calls for two identical failing calls, want 2 (nothing cached)", n)
					}
					if c.cancel {
						waitFor(t, "the timed-out upstream requests to be abandoned", func() bool { return s.Abandoned() == 2 })
					}
				}
				// The backend recovers: the next call is served and cached.
				if s := servers[c.ns]; s != nil {
					s.Set(faults.Healthy)
					for i, want := range []string{"miss", "hit"} {
						r := g.post(t, call("7", method, `["same"]`))
						if got := r.single(t); got.Error != nil || string(got.Result) != echo("test_api.get", `["same"]`) || r.header.Get("X-Hivegate-Cache") != want {
							t.Errorf("after recovery, call %d: HTTP %d cache %q %s, want %s", i, r.status, r.header.Get("X-Hivegate-Cache"), r.body, want)
						}
					}
				}
			})
		}
	})
	close(stop)
	load.Wait()
	if healthyCalls.Load() == 0 || healthyBad.Load() != 0 {
		t.Errorf("healthy route: %d of %d calls went wrong", healthyBad.Load(), healthyCalls.Load())
	}
}

// TestHealthDownAndRecovery shows that a backend that keeps failing is
// reported down by GET / and comes back by itself: the prober sees it
// answer again without any client request.
func TestHealthDownAndRecovery(t *testing.T) {
	t.Parallel()
	for _, fault := range []faults.Fault{faults.Status5xx, faults.Reset, faults.NoListener} {
		t.Run(fault.String(), func(t *testing.T) {
			t.Parallel()
			s := newServer(t, faults.Healthy, faults.Options{})
			g := startGateway(t, configYAML(map[string]string{"hived": s.URL}, ""),
				faults.GatewayOptions{HealthInterval: 20 * time.Millisecond, FailThreshold: 3})
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			g.Start(ctx)
			health := func() (int, string) {
				resp, err := g.client.Get(g.srv.URL)
				if err != nil {
					t.Fatalf("GET /: %v", err)
				}
				defer resp.Body.Close()
				var st struct {
					Status string `json:"status"`
				}
				_ = json.NewDecoder(resp.Body).Decode(&st)
				return resp.StatusCode, st.Status
			}
			if code, st := health(); code != http.StatusOK || st != "OK" {
				t.Fatalf("healthy backend: GET / %d %q", code, st)
			}
			s.Set(fault)
			r := g.post(t, call("1", "hived.test_api.get", `[]`))
			if got := r.single(t); got.Error == nil || got.Error.Code != -32011 {
				t.Errorf("call to a failing backend: %s", r.body)
			}
			waitFor(t, "GET / to report the backend down", func() bool {
				code, st := health()
				return code == http.StatusServiceUnavailable && st != "OK"
			})
			s.Set(faults.Healthy)
			waitFor(t, "the prober to bring the backend back", func() bool {
				code, st := health()
				return code == http.StatusOK && st == "OK"
			})
			r = g.post(t, call("2", "hived.test_api.get", `[]`))
			if got := r.single(t); got.Error != nil {
				t.Errorf("after recovery: %s", r.body)
			}
		})
	}
}

// TestFlappingBackend sends calls while the backend flaps between healthy
// and down: every answer carries its own id and either its own result or
// an upstream error, and a failure is never served from the cache.
func TestFlappingBackend(t *testing.T) {
	t.Parallel()
	for _, fault := range []faults.Fault{faults.Reset, faults.NoListener, faults.Status5xx} {
		t.Run(fault.String(), func(t *testing.T) {
			t.Parallel()
			s := newServer(t, faults.Healthy, faults.Options{})
			g := startGateway(t, configYAML(map[string]string{"hived": s.URL}, "ttls:\n  hived: 1\ntimeouts:\n  hived: 2\n"),
				faults.GatewayOptions{HealthInterval: 10 * time.Millisecond, FailThreshold: 2})
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			g.Start(ctx)
			s.Flap(ctx, 15*time.Millisecond, 15*time.Millisecond, fault)
			var ok, failed atomic.Int64
			var wg sync.WaitGroup
			for w := range 4 {
				wg.Go(func() {
					for i := range 150 {
						params := `[` + strconv.Itoa(i%5) + `]` // repeated keys: hits and misses
						if w%2 == 1 {
							params = `["` + strconv.Itoa(w) + `-` + strconv.Itoa(i) + `"]`
						}
						id := strconv.Itoa(w*1000 + i)
						r := g.post(t, call(id, "hived.test_api.get", params))
						got := r.single(t)
						if string(got.ID) != id {
							t.Errorf("id %s, want %s", got.ID, id)
						}
						switch {
						case got.Error == nil && string(got.Result) == echo("test_api.get", params):
							ok.Add(1)
						case got.Error != nil && (got.Error.Code == -32011 || got.Error.Code == -32012 || got.Error.Code == -32010):
							failed.Add(1)
							if r.header.Get("X-Hivegate-Cache") == "hit" {
								t.Errorf("a failure came from the cache: %s", r.body)
							}
						default:
							t.Errorf("unexpected answer HTTP %d %s", r.status, r.body)
						}
					}
				})
			}
			wg.Wait()
			t.Logf("%d results, %d upstream errors", ok.Load(), failed.Load())
			if ok.Load() == 0 {
				t.Errorf("no call succeeded while the backend flapped")
			}
		})
	}
}
