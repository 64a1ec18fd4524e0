package backend_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"
)

// chainClaim is what a chain node says on get_dynamic_global_properties.
type chainClaim struct {
	Head, LIB uint64
	Time      time.Time
}

// honestAt is the claim of an honest node whose head is head when the
// chain's head is realHead at now: block h has the time of realHead minus
// 3 s per block, and the LIB trails the head by 20 blocks.
func honestAt(head, realHead uint64, now time.Time) chainClaim {
	return chainClaim{Head: head, LIB: head - 20, Time: now.Add(-time.Duration(realHead-head) * 3 * time.Second).Truncate(time.Second)}
}

// chainNode is a fake hived node whose get_dynamic_global_properties
// answer the test sets; every other call is answered with the node's name.
type chainNode struct {
	*fakeNode
	name  string
	mu    sync.Mutex
	claim chainClaim
}

// newChainNode starts a chain node claiming c.
func newChainNode(t testing.TB, name string, c chainClaim) *chainNode {
	t.Helper()
	cn := &chainNode{name: name, claim: c}
	cn.fakeNode = newFakeNode(t, func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		if req.Method == "database_api.get_dynamic_global_properties" {
			answer(w, req.ID, "result", cn.dgpo())
			return
		}
		answer(w, req.ID, "result", strconv.Quote(cn.name))
	})
	return cn
}

// set changes what the node claims.
func (cn *chainNode) set(c chainClaim) {
	cn.mu.Lock()
	cn.claim = c
	cn.mu.Unlock()
}

// dgpo is the node's get_dynamic_global_properties result.
func (cn *chainNode) dgpo() string {
	cn.mu.Lock()
	c := cn.claim
	cn.mu.Unlock()
	return `{"id":0,"head_block_number":` + strconv.FormatUint(c.Head, 10) +
		`,"head_block_id":"00000000","time":"` + c.Time.UTC().Format("2006-01-02T15:04:05") +
		`","current_witness":"alice","last_irreversible_block_num":` + strconv.FormatUint(c.LIB, 10) + `}`
}

// url is the node's base URL.
func (cn *chainNode) url() string { return cn.srv.URL }

// jsonUnmarshal is json.Unmarshal (the fakes' decoding).
func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
