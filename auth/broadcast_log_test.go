package auth_test

import (
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
	"github.com/hivegate/hivegate/internal/syncbuf"
)

// TestBroadcastLogBounded broadcasts 8,000 operations through
// /api/broadcast, which wrote a 40 KB line (every operation's name) to the
// log: every line the gateway logs now stays under 2 KiB, the list of
// operations cut with the number of bytes left out.
func TestBroadcastLogBounded(t *testing.T) {
	t.Parallel()
	node, nodeURL := startNode(t)
	cfg, err := config.Parse("auth.yaml", []byte(nodeYAML(nodeURL, "")+authSection(t, "")))
	if err != nil {
		t.Fatal(err)
	}
	var logs syncbuf.Buffer
	gw, err := gateway.New(cfg, gateway.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw.Handler())
	t.Cleanup(func() { srv.Close(); gw.Close() })
	e := &env{t: t, node: node, gw: gw, url: srv.URL, svc: gw.Auth()}

	user := authorizedUser(t, e, false)
	posting := e.tokens(user, "login,posting")["access_token"].(string)
	e.post("bob", "p")
	e.grantAuthority(user)
	vote := `["vote",{"voter":"` + user + `","author":"bob","permlink":"p","weight":100}]`
	r := e.broadcast(posting, "["+strings.Repeat(vote+",", 7999)+vote+"]")
	t.Logf("8,000 votes: HTTP %d %.200s", r.status, r.body)

	var broadcast int
	for line := range strings.SplitSeq(strings.TrimSpace(logs.String()), "\n") {
		if len(line) > 2<<10 {
			t.Errorf("log line of %d bytes, want at most 2 KiB: %.200s…", len(line), line)
		}
		if strings.Contains(line, `"msg":"auth: broadcast`) {
			broadcast++
			if !strings.Contains(line, "vote,vote") || !strings.Contains(line, "…(+") {
				t.Errorf("the broadcast's line does not show its cut operations: %.300s", line)
			}
		}
	}
	if broadcast != 1 {
		t.Errorf("%d lines about the broadcast, want 1:\n%s", broadcast, logs.String())
	}
}
