package main

import (
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/hivesim/hassim"
)

// startDemoHiveAuth runs `hivegate demo`'s HiveAuth side on a loopback
// port of its own: a simulated HAS relay at / (the demo's
// auth.hiveauth_relay) and, at /wallet, the page of a simulated wallet
// holding every demo account's keys, where a demo user opens the login
// page's has:// link and approves or rejects it (DEMO ONLY: a real wallet
// is an app on the user's phone). It returns the relay's ws:// URL and
// a stop function.
func startDemoHiveAuth(logger *slog.Logger) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	relay := &hassim.Relay{Logger: logger}
	wallet := &hassim.Wallet{Keys: hivesim.DemoKey, Logger: logger}
	mux := http.NewServeMux()
	mux.Handle("/wallet", wallet.Page())
	mux.Handle("/", relay)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	relayURL := "ws://" + ln.Addr().String()
	logger.Info("simulated HiveAuth relay ready", "url", relayURL, "wallet", demoWalletPage(relayURL))
	return relayURL, func() { relay.Close(); _ = srv.Close() }, nil
}

// demoWalletPage is the simulated wallet's page beside the relay (the
// login page links to it in the demo).
func demoWalletPage(relayURL string) string {
	return "http" + relayURL[len("ws"):] + "/wallet"
}
