package fakenode

import (
	"encoding/json"
	"testing"
)

func TestNewAnswersShapes(t *testing.T) {
	t.Parallel()
	a, err := NewAnswers(Options{Seed: 1, Accounts: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var la struct {
		Accounts []struct {
			Name string `json:"name"`
		} `json:"accounts"`
	}
	if err := json.Unmarshal(a.ListAccounts, &la); err != nil {
		t.Fatalf("list_accounts: %v", err)
	}
	if len(la.Accounts) != 1000 {
		t.Errorf("list_accounts has %d accounts, want 1000", len(la.Accounts))
	}
	var dgpo struct {
		HeadBlockNumber uint32 `json:"head_block_number"`
		LIB             uint32 `json:"last_irreversible_block_num"`
	}
	for name, raw := range map[string]json.RawMessage{"condenser": a.CondenserDGPO, "database": a.DatabaseDGPO} {
		if err := json.Unmarshal(raw, &dgpo); err != nil {
			t.Fatalf("%s dgpo: %v", name, err)
		}
		if dgpo.HeadBlockNumber == 0 || dgpo.LIB == 0 || dgpo.LIB > dgpo.HeadBlockNumber {
			t.Errorf("%s dgpo: head %d lib %d", name, dgpo.HeadBlockNumber, dgpo.LIB)
		}
	}
	var blk struct {
		BlockID      string `json:"block_id"`
		Transactions []any  `json:"transactions"`
	}
	if err := json.Unmarshal(a.Block, &blk); err != nil {
		t.Fatalf("block: %v", err)
	}
	if blk.BlockID == "" || len(blk.Transactions) == 0 {
		t.Errorf("block: id %q with %d transactions, want a block with transactions", blk.BlockID, len(blk.Transactions))
	}
	t.Logf("sizes: condenser dgpo %d B, database dgpo %d B, list_accounts %d B, block %d B",
		len(a.CondenserDGPO), len(a.DatabaseDGPO), len(a.ListAccounts), len(a.Block))
}
