package auth_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivegate/hivegate/auth"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/gateway"
	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/hivetx"
)

// The test world: a simulated node with real demo keys, a gateway in
// front of it with the auth service on, trent as the service account, and
// two apps: demo.app (confidential: secret "demo-secret") and spa.app
// (public: PKCE only).
const (
	serviceAccount = "trent"
	appSecret      = "demo-secret"
	appRedirect    = "https://app.example/callback"
	spaRedirect    = "http://127.0.0.1/callback"
)

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// authSection is the auth section of the tests' config, with the service
// key in a file; extra lines go under it.
func authSection(t *testing.T, extra string) string {
	keyFile := filepath.Join(t.TempDir(), "posting.wif")
	if err := os.WriteFile(keyFile, []byte(hivesim.DemoKey(serviceAccount, "posting").WIF()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return authSectionWith("  service_key_file: "+keyFile+"\n", extra)
}

// authSectionWith is the auth section with the service key's source line.
func authSectionWith(keyLine, extra string) string {
	return "auth:\n  enabled: true\n  service_account: " + serviceAccount + "\n" + keyLine + extra +
		"  apps:\n" +
		"    - client_id: demo.app\n      name: Demo App\n      secret_sha256: " + sha256Hex(appSecret) + "\n" +
		"      redirect_uris: [" + appRedirect + "]\n" +
		"    - client_id: spa.app\n      redirect_uris: [" + spaRedirect + "]\n      scopes: [login, posting]\n"
}

// env is one running world.
type env struct {
	t    *testing.T
	node *hivesim.Node
	gw   *gateway.Gateway
	url  string
	// svc is the auth service (the gateway's, or one of the test's own).
	svc *auth.Service
}

// nodeYAML is a config routing everything to the node.
func nodeYAML(nodeURL, extra string) string {
	return "backends:\n  hived: " + nodeURL + "\nurls:\n  appbase: hived\n  hived: hived\n" +
		"ttls:\n  appbase: 3\n  appbase.database_api.get_dynamic_global_properties: 1\n" +
		"retries:\n  appbase: 2\n" + extra
}

func startNode(t *testing.T) (*hivesim.Node, string) {
	t.Helper()
	// The apps' accounts list the service account since genesis: the
	// second link of per-app consent (user → app → service account).
	node := hivesim.New(hivesim.Options{Seed: 5, AppAccounts: []hivesim.AppAccount{
		{Name: "demo.app", Broadcaster: serviceAccount}, {Name: "spa.app", Broadcaster: serviceAccount}}})
	srv := httptest.NewServer(node)
	t.Cleanup(srv.Close)
	return node, srv.URL
}

// newEnv runs the gateway with the auth section (plus extra config lines
// at the top level, and extra auth lines).
func newEnv(t *testing.T, authExtra, topExtra string) *env {
	t.Helper()
	node, nodeURL := startNode(t)
	cfg, err := config.Parse("auth.yaml", []byte(nodeYAML(nodeURL, topExtra)+authSection(t, authExtra)))
	if err != nil {
		t.Fatal(err)
	}
	return serve(t, node, cfg)
}

// newEnvWithAuth runs the gateway with an auth section of the test's own.
func newEnvWithAuth(t *testing.T, section string) *env {
	t.Helper()
	node, nodeURL := startNode(t)
	cfg, err := config.Parse("auth.yaml", []byte(nodeYAML(nodeURL, "")+section))
	if err != nil {
		t.Fatal(err)
	}
	return serve(t, node, cfg)
}

func serve(t *testing.T, node *hivesim.Node, cfg *config.Config) *env {
	t.Helper()
	gw, err := gateway.New(cfg, gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw.Handler())
	t.Cleanup(func() { srv.Close(); gw.Close() })
	return &env{t: t, node: node, gw: gw, url: srv.URL, svc: gw.Auth()}
}

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// newClockEnv runs a gateway without auth and an auth service of the
// test's own on a settable clock in front of it, reading through the
// gateway's dispatcher: for the tests of expiry.
func newClockEnv(t *testing.T, authExtra string) (*env, *clock) {
	t.Helper()
	node, nodeURL := startNode(t)
	cfg, err := config.Parse("auth.yaml", []byte(nodeYAML(nodeURL, "")+authSection(t, authExtra)))
	if err != nil {
		t.Fatal(err)
	}
	plain := *cfg
	plain.Auth.Enabled = false
	gw, err := gateway.New(&plain, gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: time.Now()}
	svc, err := auth.New(auth.Options{Settings: cfg.Auth, Chain: func() auth.Caller { return gw.Dispatcher() }, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	svc.Mount(mux)
	mux.Handle("/", gw.Handler())
	srv := httptest.NewServer(mux)
	t.Cleanup(func() { srv.Close(); gw.Close(); _ = svc.Close() })
	return &env{t: t, node: node, gw: gw, url: srv.URL, svc: svc}, clk
}

// reply is an HTTP answer.
type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("HTTP %d, body is not a JSON object: %s", r.status, r.body)
	}
	return m
}

// oauthErr checks an OAuth error answer.
func (r reply) oauthErr(t *testing.T, status int, code, contains string) {
	t.Helper()
	m := r.json(t)
	if r.status != status || m["error"] != code || !strings.Contains(fmt.Sprint(m["error_description"]), contains) {
		t.Fatalf("HTTP %d %v %q, want %d %s containing %q", r.status, m["error"], m["error_description"], status, code, contains)
	}
}

var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func (e *env) do(method, path string, header map[string]string, body []byte) reply {
	e.t.Helper()
	req, err := http.NewRequest(method, e.url+path, bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

// page posts JSON to the login page's API as the page does.
func (e *env) page(path string, body any) reply {
	e.t.Helper()
	b, _ := json.Marshal(body)
	return e.do("POST", path, map[string]string{"Origin": e.url, "Content-Type": "application/json"}, b)
}

var requestJSON = regexp.MustCompile(`(?s)<script id="hg-request" type="application/json">(.*?)</script>`)

// authorize opens /oauth2/authorize; it returns the answer and, for a
// page, its request.
func (e *env) authorize(q url.Values) (reply, map[string]any) {
	e.t.Helper()
	r := e.do("GET", "/oauth2/authorize?"+q.Encode(), nil, nil)
	m := requestJSON.FindSubmatch(r.body)
	if m == nil {
		return r, nil
	}
	var data map[string]any
	if err := json.Unmarshal(m[1], &data); err != nil {
		e.t.Fatalf("the page's request is not JSON: %s", m[1])
	}
	return r, data
}

// signIn runs the page's login with key for user and returns the login
// answer.
func (e *env) signIn(requestID, user string, key *hivetx.PrivateKey) reply {
	e.t.Helper()
	ch := e.page("/oauth2/challenge", map[string]any{"request_id": requestID, "username": user})
	if ch.status != http.StatusOK {
		e.t.Fatalf("challenge: HTTP %d %s", ch.status, ch.body)
	}
	c := ch.json(e.t)
	msg := c["message"].(string)
	sig := key.SignDigest(hivetx.MessageDigest(msg))
	return e.page("/oauth2/login", map[string]any{"challenge_id": c["challenge_id"], "signature": sig.String()})
}

// flow runs the whole page for user: authorize with q, log in with the
// user's posting key, approve; it returns the redirect's query.
func (e *env) flow(q url.Values, user string) url.Values {
	e.t.Helper()
	r, data := e.authorize(q)
	if data == nil || data["request_id"] == nil {
		e.t.Fatalf("authorize: HTTP %d %s", r.status, r.body)
	}
	login := e.signIn(data["request_id"].(string), user, hivesim.DemoKey(user, "posting"))
	if login.status != http.StatusOK {
		e.t.Fatalf("login: HTTP %d %s", login.status, login.body)
	}
	g := e.page("/oauth2/grant", map[string]any{"session_id": login.json(e.t)["session_id"], "approve": true})
	if g.status != http.StatusOK {
		e.t.Fatalf("grant: HTTP %d %s", g.status, g.body)
	}
	u, err := url.Parse(g.json(e.t)["redirect"].(string))
	if err != nil {
		e.t.Fatal(err)
	}
	return u.Query()
}

// codeQuery is a code request of demo.app.
func codeQuery(scope, state string) url.Values {
	return url.Values{"client_id": {"demo.app"}, "redirect_uri": {appRedirect}, "response_type": {"code"}, "scope": {scope}, "state": {state}}
}

// pkce returns a verifier and its S256 challenge.
func pkce(seed string) (verifier, challenge string) {
	verifier = strings.Repeat(seed, 50)[:64]
	h := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(h[:])
}

// form posts a form.
func (e *env) form(path string, v url.Values, header map[string]string) reply {
	e.t.Helper()
	h := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	for k, x := range header {
		h[k] = x
	}
	return e.do("POST", path, h, []byte(v.Encode()))
}

// tokens runs the code flow of demo.app for user with scope and exchanges
// the code: the token endpoint's answer.
func (e *env) tokens(user, scope string) map[string]any {
	e.t.Helper()
	q := e.flow(codeQuery(scope, "s1"), user)
	r := e.form("/api/oauth2/token", url.Values{"redirect_uri": {appRedirect}, "code": {q.Get("code")}, "client_id": {"demo.app"}, "client_secret": {appSecret}}, nil)
	if r.status != http.StatusOK {
		e.t.Fatalf("token: HTTP %d %s", r.status, r.body)
	}
	return r.json(e.t)
}

// rpc posts a JSON-RPC call.
func (e *env) rpc(method string, params any, header map[string]string) reply {
	e.t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	h := map[string]string{"Content-Type": "application/json"}
	for k, v := range header {
		h[k] = v
	}
	return e.do("POST", "/", h, b)
}

// account reads an account as the chain holds it now (past the
// gateway's cache, as the service reads it).
func (e *env) account(name string) map[string]any {
	e.t.Helper()
	params, _ := json.Marshal([]any{[]string{name}})
	d := e.gw.Dispatcher()
	calls := []dispatch.Call{{Fresh: true}}
	if _, err := d.Router().ParseKey(&calls[0].Call, nil, "condenser_api.get_accounts", params); err != nil {
		e.t.Fatal(err)
	}
	results := make([]dispatch.Result, 1)
	d.Serve(context.Background(), nil, calls, results)
	res := results[0]
	var out []map[string]any
	if res.Err != nil || json.Unmarshal(res.Result, &out) != nil || len(out) != 1 {
		e.t.Fatalf("get_accounts %s: %s %v", name, res.Result, res.Err)
	}
	return out[0]
}

// demoAppAccount is demo.app's account, the one its users authorize
// (auth.apps[].account defaults to the client id).
const demoAppAccount = "demo.app"

// authorizes reports whether user's posting authority lists demo.app's
// account.
func (e *env) authorizes(user string) bool { return e.lists(user, demoAppAccount) }

// lists reports whether user's posting authority lists account.
func (e *env) lists(user, account string) bool {
	for _, p := range e.account(user)["posting"].(map[string]any)["account_auths"].([]any) {
		if p.([]any)[0] == account {
			return true
		}
	}
	return false
}

// grantAuthority adds demo.app's account to user's posting authority as
// Hive Keychain's requestAddAccountAuthority does: an account_update
// signed with the user's active key, broadcast through the gateway.
func (e *env) grantAuthority(user string) {
	e.t.Helper()
	e.setAccountAuths(user, func(auths []any) []any { return append(auths, []any{demoAppAccount, 1}) })
	if !e.authorizes(user) {
		e.t.Fatalf("@%s's posting authority still lacks @%s", user, demoAppAccount)
	}
}

// setAccountAuths replaces user's posting account_auths with edit's
// result (hived keeps them sorted by name), by an account_update signed
// with user's active key.
func (e *env) setAccountAuths(user string, edit func([]any) []any) {
	e.t.Helper()
	acct := e.account(user)
	posting := acct["posting"].(map[string]any)
	auths := edit(slices.Clone(posting["account_auths"].([]any)))
	slices.SortFunc(auths, func(x, y any) int { return strings.Compare(x.([]any)[0].(string), y.([]any)[0].(string)) })
	op, err := hivetx.NewOperation("account_update", map[string]any{"account": user,
		"posting":  map[string]any{"weight_threshold": json.Number("1"), "account_auths": numbers(auths), "key_auths": numbers(posting["key_auths"].([]any))},
		"memo_key": acct["memo_key"], "json_metadata": acct["json_metadata"]})
	if err != nil {
		e.t.Fatal(err)
	}
	e.broadcastSigned(op, hivesim.DemoKey(user, "active"))
}

// numbers turns the float64 weights of decoded pairs into json.Number.
func numbers(pairs []any) []any {
	out := make([]any, len(pairs))
	for i, p := range pairs {
		pp := p.([]any)
		w := pp[1]
		if f, ok := w.(float64); ok {
			w = json.Number(fmt.Sprint(int(f)))
		} else if n, ok := w.(int); ok {
			w = json.Number(fmt.Sprint(n))
		}
		out[i] = []any{pp[0], w}
	}
	return out
}

// broadcastSigned signs ops with key and broadcasts them through the
// gateway's JSON-RPC, as a wallet does.
func (e *env) broadcastSigned(op hivetx.Operation, key *hivetx.PrivateKey) {
	e.t.Helper()
	var d struct {
		Result struct {
			HeadBlockID string `json:"head_block_id"`
			Time        string `json:"time"`
		}
	}
	_ = json.Unmarshal(e.rpc("database_api.get_dynamic_global_properties", map[string]any{}, nil).body, &d)
	num, prefix, err := hivetx.RefBlock(d.Result.HeadBlockID)
	if err != nil {
		e.t.Fatal(err)
	}
	now, _ := time.Parse("2006-01-02T15:04:05", d.Result.Time)
	tx := &hivetx.Transaction{RefBlockNum: num, RefBlockPrefix: prefix, Expiration: now.Add(time.Minute), Operations: []hivetx.Operation{op}}
	if err := tx.Sign(key, hivetx.MainnetChainID); err != nil {
		e.t.Fatal(err)
	}
	r := e.rpc("condenser_api.broadcast_transaction_synchronous", []json.RawMessage{tx.AppendJSON(nil)}, nil)
	if bytes.Contains(r.body, []byte(`"error"`)) {
		e.t.Fatalf("broadcast: %s", r.body)
	}
}

// broadcast posts to /api/broadcast with a token.
func (e *env) broadcast(token string, ops string) reply {
	e.t.Helper()
	return e.do("POST", "/api/broadcast", map[string]string{"Authorization": token, "Content-Type": "application/json"},
		[]byte(`{"operations":`+ops+`}`))
}

// content reads a post through the gateway.
func (e *env) content(author, permlink string) map[string]any {
	e.t.Helper()
	r := e.rpc("condenser_api.get_content", []any{author, permlink}, nil)
	var out struct{ Result map[string]any }
	_ = json.Unmarshal(r.body, &out)
	return out.Result
}

// post publishes a post of author's own, signed with author's posting
// key through the gateway.
func (e *env) post(author, permlink string) {
	e.t.Helper()
	op, err := hivetx.NewOperation("comment", map[string]any{"parent_author": "", "parent_permlink": "hive", "author": author,
		"permlink": permlink, "title": "A post", "body": "body", "json_metadata": "{}"})
	if err != nil {
		e.t.Fatal(err)
	}
	e.broadcastSigned(op, hivesim.DemoKey(author, "posting"))
}

// writeTokenKey writes a P-256 token signing key (ES256) in PKCS #8 PEM.
func writeTokenKey(t *testing.T) string {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "token.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
