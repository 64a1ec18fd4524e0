package auth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hivegate/hivegate/auth/has"
	"github.com/hivegate/hivegate/hivetx"
)

// HiveAuth login (auth.hiveauth_relay): the app side of the HiveAuth
// protocol (package has). The page asks POST /oauth2/hiveauth
// {request_id, username}; the service connects to the relay, sends an
// auth_req whose payload (encrypted with a fresh auth_key) names the app
// and carries the login challenge for the posting key, and answers the
// page with the has://auth_req/ link (account, the relay's uuid, the
// auth_key, the relay's URL) that the user opens in their wallet or scans
// as a QR code, and a wait id. The page polls POST /oauth2/hiveauth/wait
// {wait_id}. When the wallet answers auth_ack, the service decrypts it,
// recovers the key from the challenge's signature, checks that it is the
// key the wallet names, and finishes exactly as a Keychain login does
// (verifyLogin: the account's own keys, its authority's threshold, a
// session for the user's decision). auth_nack, auth_err, an answer that
// does not decrypt, the relay's silence until the request expires or a
// relay that cannot be reached end the login with a refusal the page
// shows. The outcome is kept in the store (kindHiveAuth), so a page
// polling another replica sharing Redis sees it too.

// kindHiveAuth is a HiveAuth login's outcome, by its wait id.
const kindHiveAuth = "hiveauth"

// Bounds of HiveAuth logins.
const (
	// maxHiveAuthPending bounds the logins waiting for a wallet at once
	// (each holds one relay connection).
	maxHiveAuthPending = 256
	// hiveAuthDialTimeout bounds connecting to the relay and its
	// auth_wait.
	hiveAuthDialTimeout = 10 * time.Second
	// hiveAuthStoreTimeout bounds writing an outcome.
	hiveAuthStoreTimeout = 5 * time.Second
)

// hiveAuthRecord is a HiveAuth login's state: pending until the wallet
// answers; then the login answer, or the refusal.
type hiveAuthRecord struct {
	Status string         `json:"status"` // pending, approved, refused
	Answer map[string]any `json:"answer,omitempty"`
	HTTP   int            `json:"http,omitempty"`
	Code   string         `json:"code,omitempty"`
	Desc   string         `json:"desc,omitempty"`
}

// hiveAuthStart is POST /oauth2/hiveauth {request_id, username}.
func (s *Service) hiveAuthStart(w http.ResponseWriter, r *http.Request, body map[string]any) {
	ctx := r.Context()
	reqID, req, user, app, ok := s.loginStart(w, r, body)
	if !ok {
		return
	}
	select {
	case s.hiveAuthSlots <- struct{}{}:
	default:
		writeError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "too many HiveAuth logins are waiting for a wallet; retry in a minute")
		return
	}
	release := func() { <-s.hiveAuthSlots }
	ch := challengeRecord{Request: reqID, User: user, Message: s.challengeMessage(r, app, req, user)}
	key := randomID(24) // the auth_key: shared with the wallet through the link only
	dialCtx, cancel := context.WithTimeout(ctx, hiveAuthDialTimeout)
	defer cancel()
	conn, err := has.Dial(dialCtx, s.set.HiveAuthRelay)
	if err != nil {
		release()
		s.log.Warn("auth: HiveAuth relay unreachable", "relay", s.set.HiveAuthRelay, "err", err)
		writeError(w, http.StatusBadGateway, "temporarily_unavailable", "the HiveAuth relay cannot be reached right now: retry later, or log in with Hive Keychain or your key")
		return
	}
	data := has.AuthReqData{
		App:       has.App{Name: app.Name, Description: app.Name + " (@" + app.ClientID + ") through " + hostOf(s.issuer(r))},
		Challenge: &has.ChallengeData{KeyType: "posting", Challenge: ch.Message},
	}
	wait, err := conn.AuthReq(dialCtx, user, data, key)
	if err != nil {
		conn.CloseNow()
		release()
		s.log.Warn("auth: HiveAuth relay refused the auth_req", "relay", s.set.HiveAuthRelay, "err", err)
		writeError(w, http.StatusBadGateway, "temporarily_unavailable", "the HiveAuth relay did not take the login request: retry later, or log in with Hive Keychain or your key")
		return
	}
	// The request lives until the relay's expiry, and no longer than a
	// challenge does.
	deadline := time.Now().Add(s.set.ChallengeTTL) // a network wait: the wall clock, as the relay's expiry
	if exp := time.UnixMilli(wait.Expire); wait.Expire > 0 && exp.Before(deadline) {
		deadline = exp
	}
	ttl := s.set.ChallengeTTL + s.set.SessionTTL
	waitID := randomID(16)
	if err := s.putJSON(ctx, kindHiveAuth, waitID, hiveAuthRecord{Status: "pending"}, ttl); err != nil {
		conn.CloseNow()
		release()
		s.storeFailure(w, err, "")
		return
	}
	s.hiveAuthWG.Add(1)
	go func() {
		defer s.hiveAuthWG.Done()
		defer release()
		defer conn.CloseNow()
		rec := s.hiveAuthAwait(conn, ch, key, wait.UUID, deadline)
		sctx, cancel := context.WithTimeout(context.WithoutCancel(s.bg), hiveAuthStoreTimeout)
		defer cancel()
		if err := s.putJSON(sctx, kindHiveAuth, waitID, rec, ttl); err != nil {
			s.log.Error("auth: storing a HiveAuth outcome", "err", err)
		}
	}()
	payload := has.Payload{Account: user, UUID: wait.UUID, Key: key, Host: s.set.HiveAuthRelay}
	answer := map[string]any{
		"wait_id": waitID, "uri": payload.URI(), "username": user,
		"expires_in": int(time.Until(deadline) / time.Second), "message": ch.Message,
	}
	if s.demoAuth != nil { // hivegate demo only: the simulated wallet's page beside its relay
		answer["demo_wallet"] = demoWalletURL(s.set.HiveAuthRelay)
	}
	writeJSON(w, http.StatusOK, answer)
}

// demoWalletURL is the page of `hivegate demo`'s simulated wallet: /wallet
// on the simulated relay's host.
func demoWalletURL(relay string) string {
	u, err := url.Parse(relay)
	if err != nil {
		return ""
	}
	u.Scheme = strings.Replace(u.Scheme, "ws", "http", 1)
	u.Path = "/wallet"
	return u.String()
}

// hiveAuthAwait waits for the wallet's answer to the auth_req uuid and
// turns it into the login's outcome.
func (s *Service) hiveAuthAwait(conn *has.Conn, ch challengeRecord, key, uuid string, deadline time.Time) hiveAuthRecord {
	ctx, cancel := context.WithDeadline(s.bg, deadline)
	defer cancel()
	refused := func(status int, code, desc string) hiveAuthRecord {
		s.log.Info("auth: HiveAuth login refused", "user", ch.User, "reason", desc)
		return hiveAuthRecord{Status: "refused", HTTP: status, Code: code, Desc: desc}
	}
	m, err := conn.Await(ctx, "auth", uuid)
	var relayErr *has.ErrRelay
	switch {
	case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return refused(http.StatusUnauthorized, "access_denied", "the HiveAuth request expired before your wallet answered: log in again")
	case errors.As(err, &relayErr):
		s.log.Warn("auth: HiveAuth relay error", "err", err)
		return refused(http.StatusBadGateway, "temporarily_unavailable", "the HiveAuth relay reported an error: log in again")
	case err != nil:
		if s.bg.Err() != nil {
			return refused(http.StatusServiceUnavailable, "temporarily_unavailable", "the service restarted during the HiveAuth login: log in again")
		}
		s.log.Warn("auth: HiveAuth relay connection lost", "err", err)
		return refused(http.StatusBadGateway, "temporarily_unavailable", "the connection to the HiveAuth relay was lost before your wallet answered: log in again")
	case m.Cmd == has.CmdAuthNack:
		// The wallet encrypts the uuid with the auth_key, as hive-auth-wrapper
		// checks: a relay cannot forge it.
		if got, err := has.Decrypt(m.Data, key); err != nil || string(got) != uuid {
			return refused(http.StatusBadGateway, "temporarily_unavailable", "the HiveAuth relay reported a refusal your wallet did not make: log in again")
		}
		return refused(http.StatusUnauthorized, "access_denied", "the login was rejected in your HiveAuth wallet")
	case m.Cmd == has.CmdAuthErr:
		return refused(http.StatusUnauthorized, "access_denied", "your HiveAuth wallet could not process the login: log in again")
	}
	var ack has.AuthAckData
	if err := has.Open(m.Data, key, &ack); err != nil {
		return refused(http.StatusUnauthorized, "access_denied", "the wallet's answer does not decrypt with this login's key: it did not come from the wallet you opened the link in")
	}
	if ack.Challenge == nil || ack.Challenge.Challenge == "" {
		return refused(http.StatusUnauthorized, "access_denied", "the wallet approved without signing the login challenge")
	}
	sig, err := hivetx.ParseSignature(ack.Challenge.Challenge)
	if err != nil {
		return refused(http.StatusUnauthorized, "access_denied", "the wallet's signature is not 65 bytes of hex")
	}
	signer, err := sig.Recover(hivetx.MessageDigest(ch.Message))
	if err != nil {
		return refused(http.StatusUnauthorized, "access_denied", "the wallet's signature does not verify")
	}
	if named, err := hivetx.ParsePublicKey(ack.Challenge.PubKey); err != nil || named != signer {
		return refused(http.StatusUnauthorized, "access_denied", "the wallet's signature is not by the key it names")
	}
	vctx, vcancel := context.WithTimeout(context.WithoutCancel(s.bg), hiveAuthDialTimeout)
	defer vcancel()
	answer, e := s.verifyLogin(vctx, ch, "posting", []hivetx.PublicKey{signer})
	if e != nil {
		return refused(e.status, e.code, e.desc)
	}
	s.log.Info("auth: HiveAuth login verified", "user", ch.User)
	return hiveAuthRecord{Status: "approved", Answer: answer}
}

// hiveAuthWait is POST /oauth2/hiveauth/wait {wait_id}: {"status":
// "pending"} while the wallet has not answered; then, once, the login's
// answer (as POST /oauth2/login's, with "status": "approved") or its
// refusal.
func (s *Service) hiveAuthWait(w http.ResponseWriter, r *http.Request, body map[string]any) {
	ctx := r.Context()
	id := str(body, "wait_id")
	var rec hiveAuthRecord
	if err := s.getJSON(ctx, kindHiveAuth, id, &rec); err != nil {
		s.storeFailure(w, err, "the HiveAuth login has expired: log in again")
		return
	}
	if rec.Status == "pending" {
		writeJSON(w, http.StatusOK, map[string]any{"status": "pending"})
		return
	}
	if err := s.takeJSON(ctx, kindHiveAuth, id, &rec); err != nil { // once: another poll raced for it
		s.storeFailure(w, err, "the HiveAuth login has expired: log in again")
		return
	}
	if rec.Status != "approved" {
		writeError(w, rec.HTTP, rec.Code, rec.Desc)
		return
	}
	rec.Answer["status"] = "approved"
	writeJSON(w, http.StatusOK, rec.Answer)
}

// HiveAuthRelay is the relay HiveAuth logins go through (auth.hiveauth_relay; empty: off).
func (s *Service) HiveAuthRelay() string { return s.set.HiveAuthRelay }
