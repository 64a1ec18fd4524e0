package hivesim_test

import (
	"testing"

	"github.com/hivegate/hivegate/hivesim"
)

// TestSmallestChain builds the smallest chain Options allows (and asks for
// less, which is raised to the minimum): it must not panic and must still
// have witnesses.
func TestSmallestChain(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 20, 21, 25, 26} {
		node := hivesim.New(hivesim.Options{Seed: 3, Accounts: n})
		if len(node.Accounts()) < 20 {
			t.Errorf("Accounts %d: %d accounts, want at least 20", n, len(node.Accounts()))
		}
		if len(node.Witnesses()) == 0 {
			t.Errorf("Accounts %d: no witnesses", n)
		}
	}
}
