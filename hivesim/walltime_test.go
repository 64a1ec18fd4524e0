package hivesim_test

import (
	"testing"
	"time"

	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/hivetx"
)

// TestChainRunsOnTheClock shows the chain dated by the node's clock: the
// head block is dated when the node starts, later blocks follow the clock,
// and a transaction expiring a minute from the clock's now (as hive-tx
// sets it from the wall clock) is accepted. On a chain dated 2024 it was
// refused with "transaction expiration exception".
func TestChainRunsOnTheClock(t *testing.T) {
	t.Parallel()
	start := time.Date(2031, 5, 6, 7, 8, 9, 500_000_000, time.UTC)
	clk := &fakeClock{t: start}
	n := hivesim.New(hivesim.Options{Seed: 3, Now: clk.Now})
	c := serve(t, n)
	headTime := func() (uint32, time.Time) {
		t.Helper()
		dgpo := c.result(t, "database_api.get_dynamic_global_properties", obj{})
		at, err := time.Parse("2006-01-02T15:04:05", field(t, dgpo, "time").(string))
		if err != nil {
			t.Fatal(err)
		}
		return uint32(num(dgpo.(obj), "head_block_number")), at
	}
	if head, at := headTime(); head != hivesim.DefaultInitialHead || !at.Equal(start.Truncate(time.Second)) {
		t.Fatalf("at start: head %d dated %s, want %d dated %s", head, at, hivesim.DefaultInitialHead, start.Truncate(time.Second))
	}
	clk.Advance(30 * time.Second)
	head, at := headTime()
	if head != hivesim.DefaultInitialHead+10 || !at.Equal(start.Truncate(time.Second).Add(30*time.Second)) {
		t.Fatalf("30s later: head %d dated %s, want %d dated %s", head, at, hivesim.DefaultInitialHead+10, start.Truncate(time.Second).Add(30*time.Second))
	}
	// The block of the head is dated as the head time says.
	block := c.result(t, "block_api.get_block_header", obj{"block_num": head})
	if got := field(t, field(t, block, "header"), "timestamp"); got != at.Format("2006-01-02T15:04:05") {
		t.Errorf("head block header timestamp %v, want %s", got, at.Format("2006-01-02T15:04:05"))
	}

	dgpo := c.result(t, "database_api.get_dynamic_global_properties", obj{})
	refNum, refPrefix, err := hivetx.RefBlock(field(t, dgpo, "head_block_id").(string))
	if err != nil {
		t.Fatal(err)
	}
	tx := &hivetx.Transaction{RefBlockNum: refNum, RefBlockPrefix: refPrefix,
		Expiration: clk.Now().UTC().Truncate(time.Second).Add(time.Minute),
		Operations: []hivetx.Operation{post(t, "bob", "on-the-clock")}}
	if r := broadcast(t, c, signed(t, tx, hivesim.DemoKey("bob", "posting"))); r.Error != nil {
		t.Fatalf("a post expiring a minute from the clock's now is refused: %s", r.Error.Message)
	}
	content := c.result(t, "condenser_api.get_content", []any{"bob", "on-the-clock"})
	if got := field(t, content, "created"); got != at.Format("2006-01-02T15:04:05") {
		t.Errorf("post created %v, want the head block's time %s", got, at.Format("2006-01-02T15:04:05"))
	}
}
