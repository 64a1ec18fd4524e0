package auth_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/hivegate/hivegate/auth/has"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/hivesim/hassim"
	"github.com/hivegate/hivegate/hivetx"
	"github.com/hivegate/hivegate/internal/redistest"
)

// startRelay runs a simulated HAS relay on loopback; it returns its ws://
// URL.
func startRelay(t *testing.T, relay *hassim.Relay) string {
	t.Helper()
	srv := httptest.NewServer(relay)
	t.Cleanup(func() { relay.Close(); srv.Close() })
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// hiveAuthEnv is the test world with HiveAuth on, through relay.
func hiveAuthEnv(t *testing.T, relay *hassim.Relay) *env {
	t.Helper()
	return newEnv(t, "  hiveauth_relay: "+startRelay(t, relay)+"\n", "")
}

// hiveAuthStart opens the page for demo.app and starts a HiveAuth login
// for user: the start answer.
func (e *env) hiveAuthStart(user string) reply {
	e.t.Helper()
	_, data := e.authorize(codeQuery("login,posting", "st"))
	if data == nil || data["hiveauth"] != true {
		e.t.Fatalf("the page does not offer HiveAuth: %v", data)
	}
	return e.page("/oauth2/hiveauth", map[string]any{"request_id": data["request_id"], "username": user})
}

// hiveAuthOutcome polls the wait endpoint until the login is no longer
// pending (bounded: the test's wallets answer at once or the relay's
// short timeout ends the request).
func (e *env) hiveAuthOutcome(waitID string) reply {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		r := e.page("/oauth2/hiveauth/wait", map[string]any{"wait_id": waitID})
		if r.status != http.StatusOK || r.json(e.t)["status"] != "pending" {
			return r
		}
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
	e.t.Fatal("the HiveAuth login stayed pending")
	return reply{}
}

func demoKeys(account, role string) *hivetx.PrivateKey { return hivesim.DemoKey(account, role) }

// TestHiveAuthLogin runs the HiveAuth protocol end to end: hivegate sends
// auth_req through a simulated relay, a simulated wallet holding the demo
// user's keys scans the has:// link, decrypts the request, signs the
// challenge and answers; hivegate verifies the answer as it verifies a
// Keychain login. Approval gets a session, a code and a token; a
// rejection, a key below the account's threshold, a key of another
// account, and an answer encrypted with another key are refused with
// their reason.
func TestHiveAuthLogin(t *testing.T) {
	t.Parallel()
	e := hiveAuthEnv(t, &hassim.Relay{})
	extra := hivetx.PrivateKeyFromLogin("frank", "a second signer", "posting")
	e.makeMultisig("frank", extra)
	for _, tc := range []struct {
		name, user string
		wallet     hassim.Wallet
		status     int
		want       string
	}{
		{"approved", "alice", hassim.Wallet{Keys: demoKeys}, http.StatusOK, ""},
		{"rejected in the wallet", "bob", hassim.Wallet{Keys: demoKeys, Mode: hassim.Refuse}, http.StatusUnauthorized, "rejected in your HiveAuth wallet"},
		{"one key of a 2-of-2 authority", "frank", hassim.Wallet{Keys: demoKeys}, http.StatusUnauthorized, "weight threshold"},
		{"another account's key", "carol", hassim.Wallet{SignWith: hivesim.DemoKey("bob", "posting")}, http.StatusUnauthorized, "not by a key of @carol"},
		{"encrypted with another key", "dave", hassim.Wallet{Keys: demoKeys, Mode: hassim.WrongEncryption}, http.StatusUnauthorized, "does not decrypt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := *e
			e.t = t
			start := e.hiveAuthStart(tc.user)
			if start.status != http.StatusOK {
				t.Fatalf("start: HTTP %d %s", start.status, start.body)
			}
			s := start.json(t)
			link := s["uri"].(string)
			p, err := has.ParseURI(link)
			if err != nil || p.Account != tc.user || p.Host != e.svc.HiveAuthRelay() || p.Key == "" || p.UUID == "" {
				t.Fatalf("link %s: %+v %v", link, p, err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := tc.wallet.Scan(ctx, link)
			if err != nil {
				t.Fatalf("wallet: %v", err)
			}
			if res.App.Name != "Demo App" || !strings.Contains(res.App.Description, "@demo.app") {
				t.Errorf("the wallet saw app %+v, want the config's Demo App", res.App)
			}
			out := e.hiveAuthOutcome(s["wait_id"].(string))
			if tc.status != http.StatusOK {
				out.oauthErr(t, tc.status, "access_denied", tc.want)
				return
			}
			m := out.json(t)
			if out.status != http.StatusOK || m["status"] != "approved" || m["username"] != tc.user || m["session_id"] == nil {
				t.Fatalf("outcome: HTTP %d %s", out.status, out.body)
			}
			// The outcome is given once.
			e.page("/oauth2/hiveauth/wait", map[string]any{"wait_id": s["wait_id"]}).oauthErr(t, http.StatusBadRequest, "invalid_request", "expired")
			// The session finishes as a Keychain login's does: a code, exchanged for a token of the user.
			g := e.page("/oauth2/grant", map[string]any{"session_id": m["session_id"], "approve": true})
			u, _ := url.Parse(g.json(t)["redirect"].(string))
			tok := e.form("/api/oauth2/token", url.Values{"redirect_uri": {appRedirect}, "code": {u.Query().Get("code")},
				"client_id": {"demo.app"}, "client_secret": {appSecret}}, nil)
			if tok.status != http.StatusOK || tok.json(t)["username"] != tc.user {
				t.Fatalf("token: HTTP %d %s", tok.status, tok.body)
			}
		})
	}
}

// TestHiveAuthRelayFailures: a relay that cannot be reached refuses the
// start at once, and one that never answers refuses it after the dial
// bound; a relay that goes away, or a request that expires
// before a wallet answers, ends the login with a refusal (no hang); and
// without auth.hiveauth_relay the page offers no HiveAuth and the
// endpoints do not exist.
func TestHiveAuthRelayFailures(t *testing.T) {
	t.Parallel()
	t.Run("relay down", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		_ = ln.Close()
		e := newEnv(t, "  hiveauth_relay: ws://"+addr+"\n", "")
		e.hiveAuthStart("alice").oauthErr(t, http.StatusBadGateway, "temporarily_unavailable", "HiveAuth relay cannot be reached")
	})
	t.Run("relay silent", func(t *testing.T) {
		t.Parallel()
		// A listener that takes the connection and never answers the
		// WebSocket handshake: the start gives up after its bound.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ln.Close() })
		go func() {
			var held []net.Conn
			defer func() {
				for _, c := range held {
					_ = c.Close()
				}
			}()
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				held = append(held, c)
			}
		}()
		e := newEnv(t, "  hiveauth_relay: ws://"+ln.Addr().String()+"\n", "")
		e.hiveAuthStart("alice").oauthErr(t, http.StatusBadGateway, "temporarily_unavailable", "HiveAuth relay cannot be reached")
	})
	t.Run("relay goes away", func(t *testing.T) {
		t.Parallel()
		relay := &hassim.Relay{}
		e := hiveAuthEnv(t, relay)
		start := e.hiveAuthStart("alice")
		if start.status != http.StatusOK {
			t.Fatalf("start: HTTP %d %s", start.status, start.body)
		}
		relay.Close()
		e.hiveAuthOutcome(start.json(t)["wait_id"].(string)).oauthErr(t, http.StatusBadGateway, "temporarily_unavailable", "connection to the HiveAuth relay was lost")
	})
	t.Run("expires", func(t *testing.T) {
		t.Parallel()
		e := hiveAuthEnv(t, &hassim.Relay{Timeout: time.Second})
		start := e.hiveAuthStart("alice")
		if start.status != http.StatusOK {
			t.Fatalf("start: HTTP %d %s", start.status, start.body)
		}
		e.hiveAuthOutcome(start.json(t)["wait_id"].(string)).oauthErr(t, http.StatusUnauthorized, "access_denied", "expired before your wallet answered")
	})
	t.Run("off by default", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, "", "")
		_, data := e.authorize(codeQuery("login,posting", "st"))
		if data == nil || data["hiveauth"] != nil {
			t.Fatalf("the page offers HiveAuth without a relay: %v", data)
		}
		// The path falls through to the gateway's JSON-RPC: no login starts.
		if r := e.page("/oauth2/hiveauth", map[string]any{"request_id": data["request_id"], "username": "alice"}); strings.Contains(string(r.body), "wait_id") || strings.Contains(string(r.body), has.URIPrefix) {
			t.Fatalf("POST /oauth2/hiveauth without a relay: HTTP %d %s", r.status, r.body)
		}
	})
}

// TestHiveAuthAcrossReplicas: with the Redis tier, the outcome of a
// HiveAuth login started on one replica is seen by a page polling the
// other (behind a balancer), which finishes the login.
func TestHiveAuthAcrossReplicas(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	node, nodeURL := startNode(t)
	relayURL := startRelay(t, &hassim.Relay{})
	text := nodeYAML(nodeURL, "cache:\n  redis_url: "+rs.URL()+"\n") +
		authSection(t, "  token_key_file: "+writeTokenKey(t)+"\n  hiveauth_relay: "+relayURL+"\n")
	cfgA, err := config.Parse("a.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	cfgB, _ := config.Parse("b.yaml", []byte(text))
	a, b := serve(t, node, cfgA), serve(t, node, cfgB)

	start := a.hiveAuthStart("alice")
	if start.status != http.StatusOK {
		t.Fatalf("start: HTTP %d %s", start.status, start.body)
	}
	s := start.json(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := (&hassim.Wallet{Keys: demoKeys}).Scan(ctx, s["uri"].(string)); err != nil {
		t.Fatal(err)
	}
	out := b.hiveAuthOutcome(s["wait_id"].(string))
	if out.status != http.StatusOK || out.json(t)["username"] != "alice" {
		t.Fatalf("outcome on the other replica: HTTP %d %s", out.status, out.body)
	}
	g := b.page("/oauth2/grant", map[string]any{"session_id": out.json(t)["session_id"], "approve": true})
	if g.status != http.StatusOK || !strings.Contains(g.json(t)["redirect"].(string), "code=") {
		t.Fatalf("grant on the other replica: HTTP %d %s", g.status, g.body)
	}
}

// forgingRelay is a relay that answers every auth_req with auth_wait and
// at once an auth_nack it made up (its data not the uuid encrypted with
// the app's key, which only the wallet has).
func forgingRelay(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		c := has.Accepted(ws)
		defer c.CloseNow()
		ctx := r.Context()
		_ = c.Send(ctx, has.Message{Cmd: has.CmdConnected, Timeout: 60, Version: has.Protocol})
		for {
			m, err := c.Recv(ctx)
			if err != nil {
				return
			}
			if m.Cmd == has.CmdAuthReq {
				_ = c.Send(ctx, has.Message{Cmd: has.CmdAuthWait, UUID: "u-1", Expire: time.Now().Add(time.Minute).UnixMilli()})
				forged, _ := has.Encrypt([]byte("u-1"), "a key the relay guessed")
				_ = c.Send(ctx, has.Message{Cmd: has.CmdAuthNack, UUID: "u-1", Data: forged})
			}
		}
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// TestHiveAuthForgedNack: an auth_nack whose data is not the uuid
// encrypted with the login's key did not come from the wallet; the page
// is told the relay, not the user, refused.
func TestHiveAuthForgedNack(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "  hiveauth_relay: "+forgingRelay(t)+"\n", "")
	start := e.hiveAuthStart("alice")
	if start.status != http.StatusOK {
		t.Fatalf("start: HTTP %d %s", start.status, start.body)
	}
	e.hiveAuthOutcome(start.json(t)["wait_id"].(string)).oauthErr(t, http.StatusBadGateway, "temporarily_unavailable", "refusal your wallet did not make")
}
