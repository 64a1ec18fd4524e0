package backend_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/hivegate/hivegate/backend"
)

func ExamplePool_Call() {
	// A stand-in for hived that answers every request with the same result.
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"head_block_number":5000000}}`)
	}))
	defer node.Close()

	pool, err := backend.New(map[string]string{"hived": node.URL}, backend.Options{}, nil)
	if err != nil {
		panic(err)
	}
	defer pool.Close()
	resp, err := pool.Call(context.Background(), "hived", backend.Request{
		Method:  "database_api.get_dynamic_global_properties",
		Params:  json.RawMessage(`{}`),
		Timeout: 5 * time.Second,
		Retries: 1,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(resp.Result), resp.Attempts, resp.Backend)
	// Output: {"head_block_number":5000000} 1 hived
}
