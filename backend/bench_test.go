package backend_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/backend"
)

// dgpo is a realistic small result (a get_dynamic_global_properties answer
// is about this size).
var dgpo = `{"id":0,"head_block_number":5000000,"head_block_id":"004c4b40245ffb07380a393fb2b3d841b76cdaec","time":"2016-09-15T19:47:21","current_witness":"abit","total_pow":514415,"num_pow_witnesses":172,"virtual_supply":{"amount":"271342874","precision":3,"nai":"@@000000021"},"current_supply":{"amount":"271263200","precision":3,"nai":"@@000000021"},"total_vesting_shares":{"amount":"448144916705468383","precision":6,"nai":"@@000000037"},"total_reward_shares2":"340282366920938463463374607431768211455","last_irreversible_block_num":4999980}`

// benchmarkCall runs parallel Calls against a local node answering result.
func benchmarkCall(b *testing.B, result string) {
	node := newFakeNode(b, func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		answer(w, req.ID, "result", result)
	})
	opts := backend.Options{MaxConnsPerBackend: 16}
	pool := newPool(b, opts, map[string]string{"hived": node.srv.URL})
	// A timeout, as every production route has one (the config's default).
	req := backend.Request{Method: "database_api.get_dynamic_global_properties", Params: json.RawMessage(`{}`), Retries: 1, Timeout: 5 * time.Second}
	b.SetBytes(int64(len(result)))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := pool.Call(context.Background(), "hived", req)
			if err != nil || len(resp.Result) != len(result) {
				b.Errorf("Call: %v (%d bytes)", err, len(resp.Result))
				return
			}
		}
	})
}

func BenchmarkCall(b *testing.B) { benchmarkCall(b, dgpo) }

func BenchmarkCallLargeResult(b *testing.B) {
	benchmarkCall(b, `["`+strings.Repeat("x", 2<<20)+`"]`)
}
