package cache_test

import (
	"encoding/json"
	"fmt"

	"github.com/hivegate/hivegate/cache"
)

// Storing an upstream answer under EXPIRE_IF_REVERSIBLE.
func Example() {
	c := cache.New(64 << 20)

	key := `appbase.condenser_api.get_block.params=[1]`
	params := json.RawMessage(`[1]`)
	result := []byte(`{"previous":"0000000000000000000000000000000000000000","transactions":[],"block_id":"0000000109833ce528d5bbfb3f6225b39ee10086"}`)
	const lastIrreversible = 90_000_000

	if n, ok := cache.BlockNum("condenser_api.get_block", params); ok {
		if ttl, store := cache.ReversibleTTL(n, lastIrreversible, result); store {
			c.Set(key, result, ttl)
		}
	}
	e, ok := c.Get(key)
	fmt.Println(ok, e.Expires.IsZero())

	// A block that does not exist yet is answered with null and not stored.
	_, store := cache.ReversibleTTL(lastIrreversible+100, lastIrreversible, []byte("null"))
	fmt.Println(store)
	// Output:
	// true true
	// false
}
