package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/hivesim"
)

// demoConfig routes like a production API node (hived, hivemind, HAfAH),
// except that one simulated node plays all three roles.
const demoConfig = `hivegate:
  hostname: 127.0.0.1
  port: 8090
  operator_message: "hivegate demo: a simulated Hive node, not mainnet data"
  cache_max_capacity: 268435456
backends:
  hived: %[1]s
  hivemind: %[1]s
  hafah: %[1]s
urls:
  appbase: hived
  bridge: hivemind
  hive: hivemind
  appbase.condenser_api.get_blog: hivemind
  appbase.condenser_api.get_blog_entries: hivemind
  appbase.condenser_api.get_followers: hivemind
  appbase.condenser_api.get_following: hivemind
  appbase.condenser_api.get_trending_tags: hivemind
  appbase.condenser_api.get_replies_by_last_update: hivemind
  appbase.condenser_api.get_discussions_by_author_before_date: hivemind
  appbase.condenser_api.get_account_reputations: hivemind
  appbase.follow_api: hivemind
  appbase.tags_api: hivemind
  appbase.database_api.list_votes: hivemind
  appbase.database_api.list_comments: hivemind
  appbase.block_api: hafah
  appbase.account_history_api: hafah
  appbase.condenser_api.get_account_history: hafah
  appbase.condenser_api.get_ops_in_block: hafah
ttls:
  appbase: 3
  appbase.block_api: EXPIRE_IF_REVERSIBLE
  appbase.condenser_api.get_block: EXPIRE_IF_REVERSIBLE
  appbase.network_broadcast_api: NO_CACHE
  appbase.condenser_api.get_dynamic_global_properties: 1
  appbase.database_api.get_dynamic_global_properties: 1
timeouts:
  appbase: 5
  appbase.network_broadcast_api: 0
retries:
  appbase: 1
translate_to_appbase: [hived]
auth:
  enabled: true
  service_account: %[3]s
  service_key_file: %[2]s
  apps:
    - client_id: %[4]s
      name: hivegate demo app
      secret_sha256: cd577fe2561ebff23505db0bb006300c7cdecbd46bc0e03c449afafaca2c25bf  # sha256 of the demo secret, "demo-secret"
      redirect_uris: ["%[5]s"]
  hiveauth_relay: %[6]s  # the simulated HiveAuth relay (demo_hiveauth.go)
`

// demoConfigSource names the demo's config in the logs (config=…): it is
// built in, no file (so a reload has nothing to read); its errors name
// demoConfigSource.yaml, as the embedded default's do.
const demoConfigSource = "(built-in demo config)"

// The demo's app authorization service: trent (a simulated account) is
// the service account, with its posting key derived from the demo
// password like every simulated key; demo.app is the registered app, its
// secret demo-secret, redirected to a loopback callback on any port: the
// example app's (demo_app.go), which listens on --app-listen.
const (
	demoServiceAccount = "trent"
	demoApp            = "demo.app"
	demoAppSecret      = "demo-secret"
	demoRedirect       = "http://127.0.0.1/callback" // any port: the example app's is --app-listen's
)

func demoCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", "demo [flags]", stderr)
	listen := fs.String("listen", "127.0.0.1:8090", "HOST:PORT for the gateway")
	adminListen := fs.String("admin-listen", "127.0.0.1:0", "HOST:PORT for the admin listener (metrics, /admin/*); port 0 picks a free one")
	seed := fs.Int64("seed", 1, "seed of the simulated chain")
	logFormat := fs.String("log-format", "text", "log format: text or json")
	appListen := fs.String("app-listen", demoAppListen, "127.0.0.1:PORT of the example app (demo.app, its own origin); a busy default picks a free port")
	if err := fs.Parse(args); err != nil {
		return err
	}
	appSet := false
	fs.Visit(func(f *flag.Flag) { appSet = appSet || f.Name == "app-listen" })
	logger, err := newLogger(stderr, *logFormat)
	if err != nil {
		return err
	}
	// demo.app's account exists from genesis and lists trent in its posting
	// authority: the second link of per-app consent (user → app → service).
	node := hivesim.New(hivesim.Options{Seed: *seed, AppAccounts: []hivesim.AppAccount{{Name: demoApp, Broadcaster: demoServiceAccount}}})
	nodeLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	nodeSrv := &http.Server{Handler: node, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = nodeSrv.Serve(nodeLn) }()
	defer func() { _ = nodeSrv.Close() }()
	nodeURL := "http://" + nodeLn.Addr().String()

	relayURL, stopRelay, err := startDemoHiveAuth(logger)
	if err != nil {
		return err
	}
	defer stopRelay()

	keyFile, err := writeDemoServiceKey()
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(keyFile) }()
	cfg, err := config.Parse(demoConfigSource+".yaml", fmt.Appendf(nil, demoConfig, nodeURL, keyFile, demoServiceAccount, demoApp, demoRedirect, relayURL))
	if err != nil {
		return fmt.Errorf("demo config: %w", err)
	}
	cfg.Source = demoConfigSource
	if err := applyListen(cfg, *listen); err != nil {
		return err
	}
	if err := cfg.Ops.SetAdminListen(*adminListen); err != nil {
		return fmt.Errorf("--admin-listen: %w", err)
	}
	appLn, err := listenDemoApp(*appListen, appSet, logger)
	if err != nil {
		return err
	}
	appURL := "http://" + appLn.Addr().String()
	appSrv := &http.Server{ReadHeaderTimeout: 10 * time.Second}
	defer func() { _ = appSrv.Close() }()
	logger.Info("simulated Hive node ready", "url", nodeURL, "seed", *seed)
	logger.Warn("demo: DEMO ONLY: the login page lets demo users without Hive Keychain add the app's account to their posting authority with the demo's copy of their key; only `hivegate demo` has this")
	var adminAddr string // the admin listener starts before the main one
	err = serveWith(ctx, cfg, logger, serveOptions{
		adminReady: func(addr string) { adminAddr = addr },
		ready: func(addr string) {
			// The example app talks to the gateway: it starts once the gateway listens.
			appSrv.Handler = newDemoAppServer("http://"+addr, appURL, logger).handler()
			go func() { _ = appSrv.Serve(appLn) }()
			logger.Info("demo app ready", "url", appURL)
			printDemoBanner(stdout, addr, adminAddr, nodeURL, appURL, relayURL)
		},
		ui:            true,
		demoAuthority: demoAuthority(nodeURL, logger),
	})
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// demoAppListen is the example app's default address.
const demoAppListen = "127.0.0.1:8091"

// listenDemoApp opens the example app's listener on a 127.0.0.1 address
// (demo.app's registered redirect URI is http://127.0.0.1/callback, any
// port). A busy default address falls back to a free port; an address
// given with --app-listen that cannot be bound is an error.
func listenDemoApp(addr string, given bool, logger *slog.Logger) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host != "127.0.0.1" {
		return nil, fmt.Errorf("--app-listen %q: want 127.0.0.1:PORT (the demo app's redirect URI is a loopback one)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil && !given {
		logger.Info("demo app: the default address is busy; using a free port", "addr", addr)
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		return nil, fmt.Errorf("--app-listen: %w", err)
	}
	return ln, nil
}

// writeDemoServiceKey writes the service account's posting key (a demo
// key, derived from the documented demo password) to a private temporary
// file for auth.service_key_file: the config names the file, never the
// key.
func writeDemoServiceKey() (string, error) {
	f, err := os.CreateTemp("", "hivegate-demo-key-*.wif")
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(hivesim.DemoKey(demoServiceAccount, "posting").WIF() + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return f.Name(), err
}

// demoCommands returns the commands the demo prints, for the addresses the
// gateway and its admin listener listen on ("" when it has none). Tests run
// each of them.
func demoCommands(addr, admin string) []string {
	u := "http://" + addr
	cmds := []string{
		`curl -s ` + u + `/`,
		`curl -s ` + u + ` -d '{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_dynamic_global_properties","params":[]}'`,
		`curl -s ` + u + ` -d '{"jsonrpc":"2.0","id":2,"method":"get_block","params":[1]}'`,
		`curl -s ` + u + ` -d '{"jsonrpc":"2.0","id":4,"method":"call","params":["database_api","get_accounts",[["alice"]]]}'`,
		`curl -s ` + u + ` -d '{"jsonrpc":"2.0","id":3,"method":"database_api.list_accounts","params":{"start":"","limit":3,"order":"by_name"}}'`,
		`curl -s ` + u + ` -d '[{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_block","params":[1]},{"jsonrpc":"2.0","id":2,"method":"condenser_api.get_accounts","params":[["alice"]]}]'`,
		`curl -s ` + u + `/hive.database_api.v1.DatabaseApiService/ListAccounts -H 'Content-Type: application/json' -d '{"limit":3,"order":"LIST_ACCOUNTS_ORDER_BY_NAME"}'`,
		`grpcurl -plaintext -d '{"limit":3,"order":"LIST_ACCOUNTS_ORDER_BY_NAME"}' ` + addr + ` hive.database_api.v1.DatabaseApiService/ListAccounts`,
		`curl -s ` + u + `/.well-known/oauth-authorization-server`,
		// Live blocks as Server-Sent Events for 7 s (two or three blocks
		// of the simulated node, which makes one every 3 s); drop -m 7 to
		// follow the chain until Ctrl-C.
		`curl -sN -m 7 '` + u + `/stream/blocks?headers_only=true'`,
	}
	if admin != "" {
		cmds = append(cmds, `curl -s http://`+admin+`/metrics`)
	}
	return cmds
}

// printDemoBanner prints where the demo's parts listen, the commands to
// try, and the steps of an app's login.
func printDemoBanner(w io.Writer, addr, admin, nodeURL, appURL, relayURL string) {
	var b strings.Builder
	fmt.Fprintf(&b, "\nhivegate demo is running.\n\n")
	fmt.Fprintf(&b, "  gateway:               http://%s (JSON-RPC, Connect, gRPC, gRPC-Web)\n", addr)
	fmt.Fprintf(&b, "  simulated Hive node:   %s (the gateway's backend; call it directly to compare)\n", nodeURL)
	if admin != "" {
		fmt.Fprintf(&b, "  metrics and /admin/*:  http://%s (loopback only; operator page at /operator/)\n", admin)
	}
	fmt.Fprintf(&b, "  API explorer:          http://%s/ui/ (every typed RPC over Connect-Web; add ?transport=grpcweb for gRPC-Web)\n", addr)
	fmt.Fprintf(&b, "  example app:           %s/ (%s, an app that logs users in through hivegate)\n", appURL, demoApp)
	fmt.Fprintf(&b, "  HiveAuth relay:        %s (simulated, with a simulated wallet at %s: DEMO ONLY)\n", relayURL, demoWalletPage(relayURL))
	fmt.Fprintf(&b, "  live streams:          http://%s/stream/blocks (Server-Sent Events), ws://%s/stream/ws (WebSocket JSON-RPC:\n"+
		"                         {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"subscribe\",\"params\":{\"stream\":\"blocks\"}}), hive.stream.v1.StreamService (gRPC, Connect)\n", addr, addr)
	b.WriteString("\nTry:\n\n")
	for _, c := range demoCommands(addr, admin) {
		fmt.Fprintf(&b, "  %s\n", c)
	}
	redirect := appURL + "/callback"
	fmt.Fprintf(&b, "\nLog in as an app's user (HiveSigner's API; the SDK's apiURL is http://%s):\n", addr)
	fmt.Fprintf(&b, "  1. Open %s/ and choose \"Log in with hivegate\": the app sends you to\n"+
		"     http://%s/oauth2/authorize?client_id=%s&redirect_uri=%s&response_type=code&scope=login,posting&state=…\n",
		appURL, addr, demoApp, url.QueryEscape(redirect))
	fmt.Fprintf(&b, "  2. Log in as alice with her posting key %s (every simulated account's keys derive from the\n"+
		"     password %q: PrivateKey.fromLogin). Approving adds the app's account @%s to her posting authority\n"+
		"     (@%s lists hivegate's @%s in its own since genesis). Without Hive Keychain this is a DEMO ONLY step: the demo\n"+
		"     adds it with its own copy of her active key (a real hivegate never holds a key).\n",
		hivesim.DemoKey("alice", "posting").WIF(), hivesim.DemoPassword, demoApp, demoApp, demoServiceAccount)
	fmt.Fprintf(&b, "     Or choose \"Log in with HiveAuth\" (no key typed): the page shows a has:// link for a HiveAuth wallet; here\n"+
		"     open it in the simulated wallet (DEMO ONLY link on the page), approve, and the page continues by itself.\n")
	fmt.Fprintf(&b, "  3. hivegate sends you back to %s?code=…; the app's server exchanges the code (once, within a minute):\n"+
		"     POST http://%s/api/oauth2/token  grant_type=authorization_code&code=CODE&client_id=%s&client_secret=%s&redirect_uri=%s\n",
		redirect, addr, demoApp, demoAppSecret, url.QueryEscape(redirect))
	fmt.Fprintf(&b, "  4. With the access token the app reads POST /api/me and votes with POST /api/broadcast; its page shows each request and answer.\n")
	b.WriteString("\nStop with Ctrl-C.\n")
	_, _ = io.WriteString(w, b.String())
}
