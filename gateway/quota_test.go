package gateway_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
	hivegatev1 "github.com/hivegate/hivegate/gen/hivegate/v1"
	"github.com/hivegate/hivegate/gen/hivegate/v1/hivegatev1connect"
	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/internal/redistest"
	"github.com/hivegate/hivegate/internal/syncbuf"
)

// The quota tests run real gateways (HTTP/1.1 and h2c) in front of a
// simulated Hive node. Periods are an hour, so that nothing refills while
// a test runs: a unit of the public class (3 per hour) is 20 minutes.

const quotaTestKey = "acme-3f9a1c2e-secret"

func quotaKeySHA() string { h := sha256.Sum256([]byte(quotaTestKey)); return hex.EncodeToString(h[:]) }

// quotaConfig routes everything to node: addresses get 3 units an hour,
// key acme 6; get_account_history weighs 3; clients are named by
// X-Forwarded-For (the tests connect from loopback, a trusted proxy).
func quotaConfig(node, extra string) string {
	return "hivegate:\n  port: 0\nbackends:\n  hived: " + node + "\nurls:\n  appbase: hived\n  hived: hived\n" +
		"limits:\n  trusted_proxy_header: X-Forwarded-For\n" +
		"quotas:\n  classes:\n    public: {limit: 3, period: 1h}\n    partner: {limit: 6, period: 1h}\n" +
		"  per_address: public\n  weights:\n    appbase.condenser_api.get_account_history: 3\n" +
		"  keys:\n    acme: {sha256: " + quotaKeySHA() + ", class: partner}\n" + extra
}

// quotaGateway serves a gateway of yaml; it returns its URL and gateway.
func quotaGateway(t *testing.T, yaml string) (string, *gateway.Gateway) {
	t.Helper()
	return quotaGatewayWith(t, yaml, gateway.Options{})
}

func quotaGatewayWith(t *testing.T, yaml string, opts gateway.Options) (string, *gateway.Gateway) {
	t.Helper()
	cfg, err := config.Parse("quota.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	gw, err := gateway.New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	srv.Config = gateway.NewHTTPServer("", gw.Handler(), gateway.Timeouts{}, nil)
	srv.Start()
	t.Cleanup(func() { srv.Close(); gw.Close() })
	return srv.URL, gw
}

func simNode(t *testing.T) string {
	url, _ := watchedSimNode(t)
	return url
}

// watchedSimNode is simNode with a count of the upstream requests whose
// body names a method.
func watchedSimNode(t *testing.T) (url string, asked func(method string) int) {
	t.Helper()
	sim := hivesim.New(hivesim.Options{Seed: 7})
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		sim.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func(method string) int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, b := range bodies {
			n += strings.Count(b, `"`+method+`"`)
		}
		return n
	}
}

// quotaReply is one HTTP answer.
type quotaReply struct {
	status     int
	retryAfter string
	body       string
}

func postRPC(t *testing.T, url, body string, header map[string]string) quotaReply {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return quotaReply{resp.StatusCode, resp.Header.Get("Retry-After"), string(b)}
}

const (
	getBlock   = `{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_block","params":[1]}`
	getHistory = `{"jsonrpc":"2.0","id":2,"method":"condenser_api.get_account_history","params":["alice",-1,10]}`
)

func from(addr string) map[string]string { return map[string]string{"X-Forwarded-For": addr} }

// expect checks an answer: 200 with a result, or 429 with -32017, the
// subject named, and a Retry-After of the units missing (public: 1200 s a
// unit; partner: 600 s), less at most a minute of the test's own time.
func (r quotaReply) expect(t *testing.T, what string, admitted bool, who string, wait ...int) {
	t.Helper()
	if admitted {
		if r.status != http.StatusOK || !strings.Contains(r.body, `"result"`) || r.retryAfter != "" {
			t.Fatalf("%s: HTTP %d Retry-After %q %s, want a result", what, r.status, r.retryAfter, r.body)
		}
		return
	}
	want := 1200
	if len(wait) > 0 {
		want = wait[0]
	}
	secs, _ := strconv.Atoi(r.retryAfter)
	if r.status != http.StatusTooManyRequests || !strings.Contains(r.body, `"code":-32017`) || !strings.Contains(r.body, "quota of "+who+" exceeded") ||
		secs < want-60 || secs > want {
		t.Fatalf("%s: HTTP %d Retry-After %q %s, want 429, -32017 naming %s, Retry-After about %d", what, r.status, r.retryAfter, r.body, who, want)
	}
}

// TestQuotaPerAddress: each address has its own quota; a call weighs its
// method's weight; over it, 429 with Retry-After and -32017.
func TestQuotaPerAddress(t *testing.T) {
	t.Parallel()
	url, _ := quotaGateway(t, quotaConfig(simNode(t), ""))
	a, b := from("198.51.100.1"), from("198.51.100.2")
	postRPC(t, url, getBlock, a).expect(t, "A's get_block (1 of 3)", true, "")
	postRPC(t, url, getHistory, a).expect(t, "A's get_account_history (3 more)", false, "your address", 1200)
	postRPC(t, url, getHistory, b).expect(t, "B's get_account_history (3 of 3)", true, "")
	postRPC(t, url, getBlock, b).expect(t, "B's get_block (4 of 3)", false, "your address")
	postRPC(t, url, getBlock, a).expect(t, "A's get_block (2 of 3)", true, "")
	postRPC(t, url, getBlock, a).expect(t, "A's get_block (3 of 3)", true, "")
	postRPC(t, url, getBlock, a).expect(t, "A's get_block (4 of 3)", false, "your address")
}

// TestQuotaPerKey: a request with a key counts against the key's class,
// not its address; an unknown key is refused with -32016 and never
// repeated; the key never reaches the metrics or the logs (debug level,
// access log included), only its name.
func TestQuotaPerKey(t *testing.T) {
	t.Parallel()
	var logs syncbuf.Buffer
	url, gw := quotaGatewayWith(t, quotaConfig(simNode(t), ""), gateway.Options{
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	withKey := map[string]string{"X-Forwarded-For": "198.51.100.1", "X-Api-Key": quotaTestKey}
	postRPC(t, url, getHistory, withKey).expect(t, "history with the key (3 of 6)", true, "")
	postRPC(t, url, getHistory, withKey).expect(t, "history with the key (6 of 6)", true, "")
	postRPC(t, url, getBlock, withKey).expect(t, "get_block with the key (7 of 6)", false, "API key acme", 600)
	postRPC(t, url, getHistory, from("198.51.100.1")).expect(t, "the same address without the key", true, "")

	bad := postRPC(t, url, getBlock, map[string]string{"X-Api-Key": "guessed-key-123"})
	if bad.status != http.StatusUnauthorized || !strings.Contains(bad.body, `"code":-32016`) || !strings.Contains(bad.body, "unknown API key (header X-Api-Key)") || strings.Contains(bad.body, "guessed") {
		t.Fatalf("unknown key: HTTP %d %s", bad.status, bad.body)
	}

	rec := httptest.NewRecorder()
	gw.Metrics().Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	text := rec.Body.String()
	for _, want := range []string{
		`hivegate_quota_calls_total{key="acme",outcome="admitted",subject="key"} 2`,
		`hivegate_quota_calls_total{key="acme",outcome="refused",subject="key"} 1`,
		`hivegate_quota_weight_total{key="acme",outcome="admitted",subject="key"} 6`,
		`hivegate_quota_calls_total{key="",outcome="admitted",subject="address"} 1`,
		`hivegate_quota_unknown_keys_total 1`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(text, quotaTestKey) || strings.Contains(text, "guessed") || strings.Contains(text, "198.51.100") {
		t.Errorf("metrics name a key or an address")
	}
	if l := logs.String(); !strings.Contains(l, "msg=request") || strings.Contains(l, quotaTestKey) || strings.Contains(l, "guessed-key") {
		t.Errorf("the logs name a key, or there are no access log lines:\n%s", l)
	}
}

// TestQuotaBatch: a batch's elements over quota get -32017 each and are
// never sent upstream; the others are answered; the answer is 200 with
// Retry-After.
func TestQuotaBatch(t *testing.T) {
	t.Parallel()
	node, asked := watchedSimNode(t)
	url, _ := quotaGateway(t, quotaConfig(node, ""))
	batch := `[` + getBlock + `,` + getHistory + `,` +
		strings.Replace(getBlock, `"id":1`, `"id":3`, 1) + `,{"jsonrpc":"2.0","id":4},` +
		strings.Replace(getBlock, `"id":1`, `"id":5`, 1) + `,` + strings.Replace(getBlock, `"id":1`, `"id":6`, 1) + `]`
	r := postRPC(t, url, batch, from("198.51.100.9"))
	if r.status != http.StatusOK || r.retryAfter == "" {
		t.Fatalf("batch: HTTP %d Retry-After %q %s", r.status, r.retryAfter, r.body)
	}
	var answers []struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int             `json:"code"`
			Data json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.body), &answers); err != nil || len(answers) != 6 {
		t.Fatalf("batch answer %s: %v", r.body, err)
	}
	// 3 units: ids 1, 3 and 5 fit; 2 (3 units) and 6 do not; 4 is invalid.
	want := map[int]int{1: 0, 2: -32017, 3: 0, 4: -32600, 5: 0, 6: -32017}
	for _, a := range answers {
		code := 0
		if a.Error != nil {
			code = a.Error.Code
		} else if len(a.Result) == 0 {
			t.Fatalf("id %d: neither result nor error", a.ID)
		}
		if code != want[a.ID] {
			t.Errorf("id %d: code %d, want %d (%s)", a.ID, code, want[a.ID], r.body)
		}
		if code == -32017 && !strings.Contains(string(a.Error.Data), `"quota":"public","retry_after":`) {
			t.Errorf("id %d: data %s", a.ID, a.Error.Data)
		}
	}
	if n := asked("condenser_api.get_account_history"); n != 0 {
		t.Errorf("the refused get_account_history reached the node %d times", n)
	}
	if n := asked("condenser_api.get_block"); n < 1 {
		t.Errorf("the admitted get_block calls never reached the node")
	}
}

// TestQuotaConnect: typed calls count against the same quotas, by the
// method they become; over quota they are resource_exhausted with
// Retry-After, on every wire protocol; an unknown key is unauthenticated.
func TestQuotaConnect(t *testing.T) {
	t.Parallel()
	url, _ := quotaGateway(t, quotaConfig(simNode(t), ""))
	var h2 http.Protocols
	h2.SetUnencryptedHTTP2(true)
	h1c, h2cc := &http.Client{}, &http.Client{Transport: &http.Transport{Protocols: &h2}}
	params, _ := structpb.NewValue([]any{"alice", -1, 10})
	for i, p := range protocols() {
		t.Run(p.name, func(t *testing.T) {
			hc := h1c
			if p.h2c {
				hc = h2cc
			}
			c := hivegatev1connect.NewJsonRpcServiceClient(hc, url, p.opts...)
			call := func(header map[string]string) error {
				req := connect.NewRequest(&hivegatev1.CallRequest{Method: "condenser_api.get_account_history", Params: params})
				for k, v := range header {
					req.Header().Set(k, v)
				}
				_, err := c.Call(context.Background(), req)
				return err
			}
			addr := from("198.51.100." + strconv.Itoa(20+i))
			if err := call(addr); err != nil {
				t.Fatalf("first history call (3 of 3): %v", err)
			}
			err := call(addr)
			var ce *connect.Error
			if !errors.As(err, &ce) || ce.Code() != connect.CodeResourceExhausted || !strings.Contains(ce.Message(), "quota of your address exceeded") {
				t.Fatalf("second call: %v, want resource_exhausted", err)
			}
			if secs, _ := strconv.Atoi(ce.Meta().Get("Retry-After")); secs < 3540 || secs > 3600 {
				t.Fatalf("Retry-After %q, want about 3600 (3 units of 1200 s)", ce.Meta().Get("Retry-After"))
			}
			err = call(map[string]string{"X-Api-Key": "nope"})
			if connect.CodeOf(err) != connect.CodeUnauthenticated {
				t.Fatalf("unknown key: %v, want unauthenticated", err)
			}
		})
	}
}

// TestQuotaSharedThroughRedis: two replicas with the shared tier count one
// address together; without it each counts its own.
func TestQuotaSharedThroughRedis(t *testing.T) {
	t.Parallel()
	node := simNode(t)
	rs := redistest.Start(t)
	shared := quotaConfig(node, "cache:\n  redis_url: "+rs.URL()+"\n  redis_timeout: 5s\n")
	a, _ := quotaGateway(t, shared)
	b, _ := quotaGateway(t, shared)
	c := from("198.51.100.30")
	postRPC(t, a, getBlock, c).expect(t, "on A (1 of 3)", true, "")
	postRPC(t, b, getBlock, c).expect(t, "on B (2 of 3)", true, "")
	postRPC(t, a, getBlock, c).expect(t, "on A (3 of 3)", true, "")
	postRPC(t, b, getBlock, c).expect(t, "on B (4 of 3)", false, "your address")
	postRPC(t, a, getBlock, c).expect(t, "on A (5 of 3)", false, "your address")
	if n := rs.Client().Exists(context.Background(), "hivegate:q:a:198.51.100.30").Val(); n != 1 {
		t.Fatalf("no counter for the address in Redis")
	}

	local := quotaConfig(node, "")
	la, _ := quotaGateway(t, local)
	lb, _ := quotaGateway(t, local)
	for i := range 3 {
		postRPC(t, la, getBlock, c).expect(t, "on local A "+strconv.Itoa(i+1)+" of 3", true, "")
		postRPC(t, lb, getBlock, c).expect(t, "on local B "+strconv.Itoa(i+1)+" of 3", true, "")
	}
	postRPC(t, la, getBlock, c).expect(t, "on local A (4 of 3)", false, "your address")
}

// TestQuotaOff: without a quotas section nothing is counted or refused.
func TestQuotaOff(t *testing.T) {
	t.Parallel()
	node := simNode(t)
	url, gw := quotaGateway(t, "hivegate:\n  port: 0\nbackends:\n  hived: "+node+"\nurls:\n  appbase: hived\n  hived: hived\n")
	for range 5 {
		postRPC(t, url, getHistory, map[string]string{"X-Api-Key": "anything"}).expect(t, "history", true, "")
	}
	rec := httptest.NewRecorder()
	gw.Metrics().Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if strings.Contains(rec.Body.String(), "hivegate_quota_calls_total{") {
		t.Fatal("quota series without quotas")
	}
}

// TestQuotaReload: a reload applies new quotas at once, and the counters
// carry over (a reload does not hand every client a full bucket); a
// malformed weights key is refused with file, line and key, and the
// running quotas stay.
func TestQuotaReload(t *testing.T) {
	t.Parallel()
	node := simNode(t)
	url, gw := quotaGateway(t, quotaConfig(node, ""))
	c := from("198.51.100.40")
	postRPC(t, url, getHistory, c).expect(t, "history (3 of 3)", true, "")
	postRPC(t, url, getBlock, c).expect(t, "get_block (4 of 3)", false, "your address")

	bad, err := config.Parse("reload.yaml", []byte(quotaConfig(node, "")+"  weights:\n    \"appbase..x\": 1\n"))
	if err == nil {
		_, err = gw.Reload(bad)
	}
	if err == nil || !strings.Contains(err.Error(), "reload.yaml:") || !strings.Contains(err.Error(), "quotas.weights") {
		t.Fatalf("reload with a bad weights key: %v", err)
	}
	postRPC(t, url, getBlock, c).expect(t, "get_block after the refused reload", false, "your address")

	// public: 4 units an hour now. A fresh address gets 4; the counters
	// carry over as the time they owe (GCRA): 3 units of 20 minutes are an
	// hour, 4 units of the new class, so the first address still waits one
	// new unit, 15 minutes.
	next, err := config.Parse("reload.yaml", []byte(strings.Replace(quotaConfig(node, ""), "public: {limit: 3, period: 1h}", "public: {limit: 4, period: 1h}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gw.Reload(next); err != nil {
		t.Fatal(err)
	}
	postRPC(t, url, getBlock, c).expect(t, "the first address after the reload", false, "your address", 900)
	fresh := from("198.51.100.41")
	for i := range 4 {
		postRPC(t, url, getBlock, fresh).expect(t, "a fresh address after the reload, "+strconv.Itoa(i+1)+" of 4", true, "")
	}
	postRPC(t, url, getBlock, fresh).expect(t, "a fresh address after the reload, 5 of 4", false, "your address", 900)
}
