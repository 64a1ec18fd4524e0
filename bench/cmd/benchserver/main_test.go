package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/bench/fakenode"
)

func TestParseFlags(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		args    []string
		wantErr bool
	}{
		{"defaults", nil, false},
		{"gateway needs a backend", []string{"--mode", "gateway"}, true},
		{"gateway", []string{"--mode", "gateway", "--backend-url", "http://127.0.0.1:1"}, false},
		{"unknown flag", []string{"--nope"}, true},
	}
	for _, tc := range cases {
		if _, err := parseFlags(tc.args, io.Discard); (err != nil) != tc.wantErr {
			t.Errorf("%s: err = %v, wantErr %v", tc.name, err, tc.wantErr)
		}
	}
}

func call(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// TestGatewayMode builds the gateway exactly as benchserver does, in front
// of the fake backend, and checks the TTLs the scenarios rely on.
func TestGatewayMode(t *testing.T) {
	t.Parallel()
	a, err := fakenode.NewAnswers(fakenode.Options{Accounts: 30})
	if err != nil {
		t.Fatal(err)
	}
	backend := httptest.NewServer(fakenode.NewBackend(a))
	t.Cleanup(backend.Close)
	const dgpo = `{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_dynamic_global_properties","params":[]}`
	cases := []struct {
		ttl        string
		wantSecond string // x-hivegate-cache of the second identical call
	}{
		{"3600", "hit"},
		{"NO_CACHE", "bypass"},
	}
	for _, tc := range cases {
		t.Run(tc.ttl, func(t *testing.T) {
			t.Parallel()
			f, err := parseFlags([]string{"--mode", "gateway", "--backend-url", backend.URL, "--dgpo-ttl", tc.ttl, "--cache-capacity", "1048576"}, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			srv, stats, cleanup, err := newServer(ctx, f, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(cleanup)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			go func() { _ = srv.Serve(ln) }()
			t.Cleanup(func() { _ = srv.Close() })
			gw := struct{ URL string }{"http://" + ln.Addr().String()}
			call(t, gw.URL, dgpo)
			resp, body := call(t, gw.URL, dgpo)
			if got := resp.Header.Get("X-Hivegate-Cache"); got != tc.wantSecond {
				t.Errorf("second call: x-hivegate-cache %q, want %q (%.100s)", got, tc.wantSecond, body)
			}
			var ans struct {
				Result json.RawMessage `json:"result"`
				ID     int             `json:"id"`
			}
			if err := json.Unmarshal([]byte(body), &ans); err != nil || string(ans.Result) != string(a.CondenserDGPO) || ans.ID != 1 {
				t.Errorf("answer %.200s (err %v), want the backend's DGPO with id 1", body, err)
			}
			// A block is stored with no expiry whatever the irreversible block.
			block := `{"jsonrpc":"2.0","id":2,"method":"condenser_api.get_block","params":[123]}`
			call(t, gw.URL, block)
			if resp, _ := call(t, gw.URL, block); resp.Header.Get("X-Hivegate-Cache") != "hit" {
				t.Errorf("get_block: second call %q, want hit", resp.Header.Get("X-Hivegate-Cache"))
			}
			if _, ok := stats()["cache"]; !ok {
				t.Error("stats lack the cache figures")
			}
		})
	}
}

func TestControlHandler(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(controlHandler(func() map[string]any { return map[string]any{"extra": 1} }))
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st struct {
		Mem   memStats `json:"mem"`
		Extra int      `json:"extra"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	if st.Mem.HeapSys == 0 || st.Mem.GOMAXPROCS == 0 || st.Extra != 1 {
		t.Errorf("stats %+v", st)
	}
	gc, _ := call(t, srv.URL+"/gc", "")
	if gc.StatusCode != http.StatusNoContent {
		t.Errorf("POST /gc: %s", gc.Status)
	}
}
