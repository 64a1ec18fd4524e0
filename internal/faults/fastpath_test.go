package faults_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/hivegate/hivegate/internal/faults"
)

// TestHTTP1FastPathSetting shows what hivegate.http1_fast_path changes:
// with it on, JSON-RPC posts are answered by the fast path and a GET is
// handed over to net/http; with it off, net/http answers all of them. The
// answers are the same either way.
func TestHTTP1FastPathSetting(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fast                   bool
		wantServed, wantHanded uint64
	}{
		{fast: true, wantServed: 3, wantHanded: 1},
		{fast: false},
	} {
		t.Run(fmt.Sprintf("http1_fast_path=%v", tc.fast), func(t *testing.T) {
			t.Parallel()
			s := newServer(t, faults.Healthy, faults.Options{})
			g := startGateway(t, withFastPath(configYAML(map[string]string{"hived": s.URL}, ""), tc.fast), faults.GatewayOptions{})
			for i := range 3 {
				r := g.post(t, call(fmt.Sprint(i), "hived.test_api.get", `[1]`))
				if got := r.single(t); r.status != http.StatusOK || string(got.Result) != echo("test_api.get", `[1]`) {
					t.Fatalf("call %d: HTTP %d %s", i, r.status, r.body)
				}
			}
			resp, err := g.client.Get(g.srv.URL + "/")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("GET /: HTTP %d", resp.StatusCode)
			}
			st := g.srv.FastPathStats()
			if st.Served != tc.wantServed || st.HandedOver != tc.wantHanded {
				t.Errorf("fast path served %d and handed over %d, want %d and %d", st.Served, st.HandedOver, tc.wantServed, tc.wantHanded)
			}
		})
	}
}
