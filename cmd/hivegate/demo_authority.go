package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/hivetx"
)

// demoAuthority is auth.Options.DemoAuthority for `hivegate demo` and
// nothing else: it adds account (the app's account: per-app consent, the
// user → app → service account chain) to user's posting authority as Hive
// Keychain's requestAddAccountAuthority would, with an
// account_update signed by user's active key — which the demo has, since
// every simulated account's keys derive from the published demo password.
// A demo user without Keychain can then finish a posting login. It talks
// to the simulated node directly (the gateway reads authorities past its
// cache). Each use is logged as a warning by the auth service.
func demoAuthority(nodeURL string, logger *slog.Logger) func(ctx context.Context, user, account string) error {
	hc := &http.Client{Timeout: 10 * time.Second}
	return func(ctx context.Context, user, account string) error {
		var accounts []struct {
			Posting      map[string]json.RawMessage `json:"posting"`
			MemoKey      string                     `json:"memo_key"`
			JSONMetadata string                     `json:"json_metadata"`
		}
		if err := nodeCall(ctx, hc, nodeURL, "condenser_api.get_accounts", []any{[]string{user}}, &accounts); err != nil {
			return err
		}
		if len(accounts) != 1 {
			return fmt.Errorf("no account @%s", user)
		}
		a := accounts[0]
		var auths [][2]json.RawMessage
		if err := json.Unmarshal(a.Posting["account_auths"], &auths); err != nil {
			return fmt.Errorf("@%s's posting authority: %w", user, err)
		}
		name, _ := json.Marshal(account)
		auths = append(auths, [2]json.RawMessage{name, json.RawMessage("1")})
		// hived keeps account_auths sorted by name; so must the operation.
		slices.SortFunc(auths, func(x, y [2]json.RawMessage) int { return bytes.Compare(x[0], y[0]) })
		a.Posting["account_auths"], _ = json.Marshal(auths)
		op, _ := json.Marshal([]any{[]any{"account_update", map[string]any{
			"account": user, "posting": a.Posting, "memo_key": a.MemoKey, "json_metadata": a.JSONMetadata,
		}}})
		ops, err := hivetx.ParseOperations(op)
		if err != nil {
			return err
		}
		var head struct {
			HeadBlockID string `json:"head_block_id"`
			Time        string `json:"time"`
		}
		if err := nodeCall(ctx, hc, nodeURL, "condenser_api.get_dynamic_global_properties", []any{}, &head); err != nil {
			return err
		}
		num, prefix, err := hivetx.RefBlock(head.HeadBlockID)
		if err != nil {
			return err
		}
		t, err := time.Parse("2006-01-02T15:04:05", head.Time)
		if err != nil {
			return err
		}
		tx := &hivetx.Transaction{RefBlockNum: num, RefBlockPrefix: prefix, Expiration: t.Add(time.Minute), Operations: ops}
		if err := tx.Sign(hivesim.DemoKey(user, "active"), hivetx.MainnetChainID); err != nil {
			return err
		}
		if err := nodeCall(ctx, hc, nodeURL, "condenser_api.broadcast_transaction_synchronous", []json.RawMessage{tx.AppendJSON(nil)}, nil); err != nil {
			return err
		}
		logger.Warn("demo: DEMO ONLY: added an app's account to a demo user's posting authority with the user's demo active key",
			"user", user, "account", account, "trx_id", tx.ID())
		return nil
	}
}

// nodeCall makes one JSON-RPC call to the simulated node and decodes its
// result into out (nil: ignored).
func nodeCall(ctx context.Context, hc *http.Client, nodeURL, method string, params, out any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, nodeURL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s: the simulated node did not answer", method)
	}
	defer func() { _ = resp.Body.Close() }()
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if r.Error != nil {
		return fmt.Errorf("%s: %s", method, r.Error.Message)
	}
	if out == nil {
		return nil
	}
	if len(r.Result) == 0 {
		return errors.New(method + ": no result")
	}
	return json.Unmarshal(r.Result, out)
}
