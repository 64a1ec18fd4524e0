package hassim_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivegate/hivegate/auth/has"
	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/hivesim/hassim"
	"github.com/hivegate/hivegate/hivetx"
)

// TestAuthThenChallenge runs the app side by hand against the simulated
// relay and wallet: auth_req with a challenge (auth_wait, the wallet's
// auth_ack with the signed challenge), then challenge_req with the
// wallet's session token (challenge_wait, challenge_ack), each answer
// decrypted with the link's key and its signature recovered to alice's
// posting key.
func TestAuthThenChallenge(t *testing.T) {
	t.Parallel()
	relay := &hassim.Relay{}
	srv := httptest.NewServer(relay)
	t.Cleanup(func() { relay.Close(); srv.Close() })
	host := "ws" + strings.TrimPrefix(srv.URL, "http")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	app, err := has.Dial(ctx, host)
	if err != nil {
		t.Fatal(err)
	}
	defer app.CloseNow()
	if app.Connected.Version != has.Protocol || app.Connected.Timeout != 60 {
		t.Errorf("connected: %+v", app.Connected)
	}
	const key = "an auth_key"
	wait, err := app.AuthReq(ctx, "alice", has.AuthReqData{App: has.App{Name: "test"}, Challenge: &has.ChallengeData{KeyType: "posting", Challenge: "first"}}, key)
	if err != nil || wait.Cmd != has.CmdAuthWait || wait.Expire <= time.Now().UnixMilli() {
		t.Fatalf("auth_wait: %+v %v", wait, err)
	}
	wallet := &hassim.Wallet{Keys: hivesim.DemoKey, ServeChallenges: true}
	wctx, wcancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if _, err := wallet.Scan(wctx, has.Payload{Account: "alice", UUID: wait.UUID, Key: key, Host: host}.URI()); err != nil {
			t.Errorf("wallet: %v", err)
		}
	}()
	defer func() { wcancel(); wg.Wait() }()

	want := hivesim.DemoKey("alice", "posting").PublicKey()
	check := func(signed *has.ChallengeAckData, text string) {
		t.Helper()
		sig, err := hivetx.ParseSignature(signed.Challenge)
		if err != nil {
			t.Fatal(err)
		}
		if k, err := sig.Recover(hivetx.MessageDigest(text)); err != nil || k != want || signed.PubKey != want.String() {
			t.Errorf("%q signed by %v (%s), want %s", text, k, signed.PubKey, want)
		}
	}
	ack, err := app.Await(ctx, "auth", wait.UUID)
	if err != nil || ack.Cmd != has.CmdAuthAck {
		t.Fatalf("auth answer: %+v %v", ack, err)
	}
	var data has.AuthAckData
	if err := has.Open(ack.Data, key, &data); err != nil || data.Token == "" || data.Challenge == nil {
		t.Fatalf("auth_ack data: %+v %v", data, err)
	}
	check(data.Challenge, "first")

	cw, err := app.ChallengeReq(ctx, "alice", data.Token, has.ChallengeData{KeyType: "posting", Challenge: "second"}, key)
	if err != nil || cw.Cmd != has.CmdChallengeWait {
		t.Fatalf("challenge_wait: %+v %v", cw, err)
	}
	cack, err := app.Await(ctx, "challenge", cw.UUID)
	if err != nil || cack.Cmd != has.CmdChallengeAck {
		t.Fatalf("challenge answer: %+v %v", cack, err)
	}
	var signed has.ChallengeAckData
	if err := has.Open(cack.Data, key, &signed); err != nil {
		t.Fatal(err)
	}
	check(&signed, "second")

	// An unknown command is the relay's error message.
	if err := app.Send(ctx, has.Message{Cmd: "bogus"}); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Await(ctx, "auth", "none"); err == nil || !strings.Contains(err.Error(), "unknown command bogus") {
		t.Errorf("bogus: %v", err)
	}
}

// TestRefuse: a refusing wallet answers auth_nack whose data is the uuid
// encrypted with the link's key, as hive-auth-wrapper checks it.
func TestRefuse(t *testing.T) {
	t.Parallel()
	relay := &hassim.Relay{}
	srv := httptest.NewServer(relay)
	t.Cleanup(func() { relay.Close(); srv.Close() })
	host := "ws" + strings.TrimPrefix(srv.URL, "http")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	app, err := has.Dial(ctx, host)
	if err != nil {
		t.Fatal(err)
	}
	defer app.CloseNow()
	wait, err := app.AuthReq(ctx, "bob", has.AuthReqData{App: has.App{Name: "test"}}, "k")
	if err != nil {
		t.Fatal(err)
	}
	wallet := &hassim.Wallet{Keys: hivesim.DemoKey, Mode: hassim.Refuse}
	if _, err := wallet.Scan(ctx, has.Payload{Account: "bob", UUID: wait.UUID, Key: "k", Host: host}.URI()); err != nil {
		t.Fatal(err)
	}
	m, err := app.Await(ctx, "auth", wait.UUID)
	if err != nil || m.Cmd != has.CmdAuthNack {
		t.Fatalf("answer: %+v %v", m, err)
	}
	if got, err := has.Decrypt(m.Data, "k"); err != nil || string(got) != wait.UUID {
		t.Errorf("nack data %q %v, want the uuid", got, err)
	}
}
