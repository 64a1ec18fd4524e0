package hivesim_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/hivetx"
)

func postingKey(a string) *hivetx.PrivateKey { return hivesim.DemoKey(a, "posting") }

func ownPosting(a string) map[*hivetx.PrivateKey]int {
	return map[*hivetx.PrivateKey]int{postingKey(a): 1}
}

// describe is a response for a failure message: its result or its error.
func describe(r response) string {
	if r.Error == nil {
		return "result " + string(r.Result)
	}
	return "error " + errName(r) + " " + strconv.Itoa(r.Error.Code) + " " + r.Error.Message
}

// errName is a hived error's data.name.
func errName(r response) string {
	if r.Error == nil {
		return ""
	}
	var data struct{ Name string }
	_ = json.Unmarshal(r.Error.Data, &data)
	return data.Name
}

// TestVerifyAuthorityAgreesWithBroadcast: database_api and condenser_api
// verify_authority check a signed transaction with the same sign_state as
// broadcast: what broadcast accepts they verify, what it refuses they
// refuse with the same error.
func TestVerifyAuthorityAgreesWithBroadcast(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, c *client)
		keys  []*hivetx.PrivateKey
		want  string // the error name, "" for accepted
	}{
		{"the user's own key", func(*testing.T, *client) {}, []*hivetx.PrivateKey{postingKey("alice")}, ""},
		{"user → app → broadcaster", func(t *testing.T, c *client) {
			setPosting(t, c, "alice", 1, ownPosting("alice"), map[string]int{"bob": 1})
			setPosting(t, c, "bob", 1, ownPosting("bob"), map[string]int{"trent": 1})
		}, []*hivetx.PrivateKey{postingKey("trent")}, ""},
		{"the active key stands in for posting", func(*testing.T, *client) {}, []*hivetx.PrivateKey{hivesim.DemoKey("alice", "active")}, ""},
		{"a key beyond depth 2", func(t *testing.T, c *client) {
			setPosting(t, c, "alice", 1, ownPosting("alice"), map[string]int{"bob": 1})
			setPosting(t, c, "bob", 1, ownPosting("bob"), map[string]int{"carol": 1})
			setPosting(t, c, "carol", 1, ownPosting("carol"), map[string]int{"trent": 1})
		}, []*hivetx.PrivateKey{postingKey("trent")}, "tx_missing_posting_auth"},
		{"an unnecessary signature", func(*testing.T, *client) {}, []*hivetx.PrivateKey{postingKey("alice"), postingKey("bob")}, "tx_irrelevant_sig"},
		{"a member's active key", func(t *testing.T, c *client) {
			setPosting(t, c, "alice", 1, ownPosting("alice"), map[string]int{"bob": 1})
		}, []*hivetx.PrivateKey{hivesim.DemoKey("bob", "active")}, "tx_missing_posting_auth"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, c, _ := testNode(t, 49)
			tc.setup(t, c)
			tx := signed(t, newTx(t, c, follows(t, "alice", "bob")), tc.keys...)
			trx := json.RawMessage(tx.AppendJSON(nil))
			db := c.call(t, "database_api.verify_authority", obj{"trx": trx})
			cond := c.call(t, "condenser_api.verify_authority", []any{trx})
			bc := broadcast(t, c, tx)
			if errName(bc) != tc.want {
				t.Fatalf("broadcast: error %q, want %q", errName(bc), tc.want)
			}
			for _, r := range []struct {
				method string
				r      response
				ok     string
			}{{"database_api.verify_authority", db, `{"valid":true}`}, {"condenser_api.verify_authority", cond, "true"}} {
				if tc.want == "" {
					if r.r.Error != nil || string(r.r.Result) != r.ok {
						t.Errorf("%s: %s, want %s as broadcast accepted it", r.method, describe(r.r), r.ok)
					}
					continue
				}
				if errName(r.r) != tc.want || r.r.Error.Code != bc.Error.Code || r.r.Error.Message != bc.Error.Message {
					t.Errorf("%s: %s, want broadcast's %s", r.method, describe(r.r), describe(bc))
				}
			}
		})
	}
}

// TestVerifyAccountAuthoritySignState: verify_account_authority is hived's
// has_authorization before HF28: the signers satisfy the account's
// authority of the level through the same sign_state as broadcast (member
// accounts in the posting role for posting, a higher role standing in),
// and a signer left unused makes the answer false.
func TestVerifyAccountAuthoritySignState(t *testing.T) {
	t.Parallel()
	_, c, _ := testNode(t, 50)
	setPosting(t, c, "alice", 1, ownPosting("alice"), map[string]int{"bob": 1})
	setPosting(t, c, "bob", 1, ownPosting("bob"), map[string]int{"trent": 1})
	for _, tc := range []struct {
		name    string
		level   string
		signers []*hivetx.PrivateKey
		want    bool
	}{
		{"posting through app and broadcaster", "posting", []*hivetx.PrivateKey{postingKey("trent")}, true},
		{"posting by the user's key", "posting", []*hivetx.PrivateKey{postingKey("alice")}, true},
		{"posting by the user's active key", "posting", []*hivetx.PrivateKey{hivesim.DemoKey("alice", "active")}, true},
		{"posting with an unused signer", "posting", []*hivetx.PrivateKey{postingKey("alice"), postingKey("carol")}, false},
		{"posting by a member's active key", "posting", []*hivetx.PrivateKey{hivesim.DemoKey("bob", "active")}, false},
		{"active by the posting chain", "active", []*hivetx.PrivateKey{postingKey("trent")}, false},
		{"active by the owner key", "active", []*hivetx.PrivateKey{hivesim.DemoKey("alice", "owner")}, true},
		{"owner by the active key", "owner", []*hivetx.PrivateKey{hivesim.DemoKey("alice", "active")}, false},
	} {
		signers := []any{}
		for _, k := range tc.signers {
			signers = append(signers, k.PublicKey().String())
		}
		got := c.result(t, "database_api.verify_account_authority", obj{"account": "alice", "signers": signers, "level": tc.level})
		if field(t, got, "valid") != tc.want {
			t.Errorf("%s: valid %v, want %v", tc.name, field(t, got, "valid"), tc.want)
		}
		cond := c.result(t, "condenser_api.verify_account_authority", []any{"alice", signers, tc.level})
		if cond != tc.want {
			t.Errorf("%s: condenser %v, want %v", tc.name, cond, tc.want)
		}
	}
}

// byteOrder sorts public keys as hived's flat_set<public_key_type> does:
// by their 33 bytes.
func byteOrder(keys ...*hivetx.PrivateKey) []any {
	pub := make([]hivetx.PublicKey, len(keys))
	for i, k := range keys {
		pub[i] = k.PublicKey()
	}
	slices.SortFunc(pub, func(a, b hivetx.PublicKey) int { return bytes.Compare(a[:], b[:]) })
	out := make([]any, len(pub))
	for i, k := range pub {
		out[i] = k.String()
	}
	return out
}

// TestRequiredAndPotentialSignatures: get_required_signatures and
// get_potential_signatures walk the transaction's authorities as hived's
// get_required_signatures does: posting accounts by their posting
// authority only (no higher role stands in), members resolved in the
// posting role at most two deep; a missing authority is no error.
func TestRequiredAndPotentialSignatures(t *testing.T) {
	t.Parallel()
	_, c, _ := testNode(t, 51)
	setPosting(t, c, "alice", 1, ownPosting("alice"), map[string]int{"bob": 1})
	setPosting(t, c, "bob", 1, ownPosting("bob"), map[string]int{"trent": 1})
	setPosting(t, c, "trent", 1, ownPosting("trent"), map[string]int{"carol": 1})
	trx := json.RawMessage(newTx(t, c, follows(t, "alice", "bob")).AppendJSON(nil))

	// alice, bob at depth 1 and trent at depth 2: carol, at depth 3, is
	// never fetched; no active or owner key is a candidate.
	want := byteOrder(postingKey("alice"), postingKey("bob"), postingKey("trent"))
	if got := c.result(t, "condenser_api.get_potential_signatures", []any{trx}); !slices.Equal(got.([]any), want) {
		t.Errorf("condenser get_potential_signatures %v, want %v", got, want)
	}
	if got := field(t, c.result(t, "database_api.get_potential_signatures", obj{"trx": trx}), "keys"); !slices.Equal(got.([]any), want) {
		t.Errorf("database get_potential_signatures %v, want %v", got, want)
	}

	for _, tc := range []struct {
		name      string
		available []*hivetx.PrivateKey
		want      []any
	}{
		{"the broadcaster's key through two links, not alice's active key",
			[]*hivetx.PrivateKey{hivesim.DemoKey("alice", "active"), postingKey("trent"), postingKey("carol")}, byteOrder(postingKey("trent"))},
		{"the user's own key first", []*hivetx.PrivateKey{postingKey("alice"), postingKey("trent")}, byteOrder(postingKey("alice"))},
		{"nothing that signs: no keys, no error", []*hivetx.PrivateKey{hivesim.DemoKey("alice", "owner")}, []any{}},
	} {
		avail := []any{}
		for _, k := range tc.available {
			avail = append(avail, k.PublicKey().String())
		}
		if got := c.result(t, "condenser_api.get_required_signatures", []any{trx, avail}); !slices.Equal(got.([]any), tc.want) {
			t.Errorf("%s: condenser get_required_signatures %v, want %v", tc.name, got, tc.want)
		}
		got := field(t, c.result(t, "database_api.get_required_signatures", obj{"trx": trx, "available_keys": avail}), "keys")
		if !slices.Equal(got.([]any), tc.want) {
			t.Errorf("%s: database get_required_signatures %v, want %v", tc.name, got, tc.want)
		}
	}
}
