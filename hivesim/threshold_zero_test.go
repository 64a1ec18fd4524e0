package hivesim_test

import (
	"encoding/json"
	"testing"
)

// TestThresholdZeroAuthority: hived's sign_state meets an authority whose
// weight_threshold is 0 with no signature at all (total_weight >=
// weight_threshold), and account_update does not refuse one (hived checks
// is_impossible only in account recovery): anyone may then act for the
// account, and a signature by a key the authority does not list is one too
// many.
func TestThresholdZeroAuthority(t *testing.T) {
	t.Parallel()
	_, c, _ := testNode(t, 53)
	setPosting(t, c, "alice", 0, ownPosting("alice"), nil)
	unsigned := newTx(t, c, follows(t, "alice", "bob"))
	trx := json.RawMessage(unsigned.AppendJSON(nil))
	if r := c.call(t, "database_api.verify_authority", obj{"trx": trx}); r.Error != nil {
		t.Fatalf("verify_authority: %s", r.Error.Message)
	}
	got := c.result(t, "database_api.verify_account_authority", obj{"account": "alice", "signers": []any{}, "level": "posting"})
	if field(t, got, "valid") != true {
		t.Errorf("verify_account_authority with no signer: %v", got)
	}
	if r := broadcast(t, c, unsigned); r.Error != nil {
		t.Fatalf("an unsigned transaction for a threshold-0 authority: %s", r.Error.Message)
	}
	refused(t, broadcast(t, c, signed(t, newTx(t, c, follows(t, "alice", "carol")), postingKey("carol"))),
		"tx_irrelevant_sig", "Unnecessary signature(s) detected")
	// A threshold the keys cannot reach is accepted too, and then nothing signs.
	setPosting(t, c, "bob", 5, ownPosting("bob"), nil)
	refused(t, broadcast(t, c, signed(t, newTx(t, c, follows(t, "bob", "carol")), postingKey("bob"))),
		"tx_missing_posting_auth", "Missing Posting Authority bob")
}
