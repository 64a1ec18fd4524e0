// Package fakenode holds the servers hivegate's load harness measures
// against: a minimal net/http server that returns one fixed JSON-RPC body
// (the machine's ceiling) and a fast fake hived that answers every JSON-RPC
// call with a fixed result, honouring the request id.
//
// The fixed results are produced once, at startup, by the project's
// simulated node (hivesim), so their JSON has hived's shape and a
// realistic size; serving them afterwards costs no more than decoding the
// request envelope.
package fakenode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/hivegate/hivegate/hivesim"
)

// Answers are the fixed "result" values the fake node serves, as raw JSON.
type Answers struct {
	// CondenserDGPO answers condenser_api.get_dynamic_global_properties.
	CondenserDGPO json.RawMessage
	// DatabaseDGPO answers database_api.get_dynamic_global_properties.
	DatabaseDGPO json.RawMessage
	// ListAccounts answers database_api.list_accounts (a fixed page of
	// Options.Accounts accounts, whatever the params ask for).
	ListAccounts json.RawMessage
	// Block answers condenser_api.get_block and block_api.get_block.
	Block json.RawMessage
}

// Options configure how the answers are synthesized.
type Options struct {
	// Seed selects the simulated chain (default 1).
	Seed int64
	// Accounts is the number of accounts in the list_accounts answer
	// (default 1000).
	Accounts int
}

// NewAnswers synthesizes the fixed answers from a simulated node.
func NewAnswers(o Options) (*Answers, error) {
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Accounts <= 0 {
		o.Accounts = 1000
	}
	node := hivesim.New(hivesim.Options{Seed: o.Seed, Accounts: o.Accounts})
	var a Answers
	var err error
	if a.CondenserDGPO, err = simCall(node, "condenser_api.get_dynamic_global_properties", `[]`); err != nil {
		return nil, err
	}
	if a.DatabaseDGPO, err = simCall(node, "database_api.get_dynamic_global_properties", `{}`); err != nil {
		return nil, err
	}
	params := fmt.Sprintf(`{"start":"","limit":%d,"order":"by_name"}`, o.Accounts)
	if a.ListAccounts, err = simCall(node, "database_api.list_accounts", params); err != nil {
		return nil, err
	}
	a.Block, err = largestBlock(node)
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// largestBlock returns the biggest condenser get_block answer among the
// first simulated blocks that carry transactions, so that cache-filling
// traffic stores values of a realistic (non-empty) block size.
func largestBlock(node *hivesim.Node) (json.RawMessage, error) {
	nums := node.BlocksWithTransactions()
	if len(nums) == 0 {
		return simCall(node, "condenser_api.get_block", `[1]`)
	}
	var best json.RawMessage
	for i, n := range nums {
		if i == 200 {
			break
		}
		r, err := simCall(node, "condenser_api.get_block", fmt.Sprintf("[%d]", n))
		if err != nil {
			return nil, err
		}
		if len(r) > len(best) {
			best = r
		}
	}
	return best, nil
}

// simCall makes one JSON-RPC call to the simulated node and returns its
// result, compacted.
func simCall(node http.Handler, method, params string) (json.RawMessage, error) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	node.ServeHTTP(rec, req)
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
		return nil, fmt.Errorf("simulated %s: %w", method, err)
	}
	if len(resp.Result) == 0 || resp.Error != nil {
		return nil, fmt.Errorf("simulated %s: no result: %s", method, rec.Body.Bytes())
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, resp.Result); err != nil {
		return nil, fmt.Errorf("simulated %s: %w", method, err)
	}
	return buf.Bytes(), nil
}

// For returns the fixed result for an upstream method name. hived's
// "call" form is accepted too ({"method":"call","params":[api, method, args]}).
func (a *Answers) For(method string) json.RawMessage {
	name := method
	if i := strings.LastIndexByte(method, '.'); i >= 0 {
		name = method[i+1:]
	}
	switch name {
	case "get_dynamic_global_properties":
		if strings.HasPrefix(method, "database_api.") {
			return a.DatabaseDGPO
		}
		return a.CondenserDGPO
	case "list_accounts":
		return a.ListAccounts
	case "get_block":
		return a.Block
	}
	return a.CondenserDGPO
}

// Envelope returns a whole JSON-RPC answer carrying result for id.
func Envelope(dst []byte, id json.RawMessage, result json.RawMessage) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","result":`...)
	dst = append(dst, result...)
	dst = append(dst, `,"id":`...)
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	dst = append(dst, id...)
	return append(dst, '}')
}
