package hivesim_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/hivetx"
)

// newTx builds a transaction of ops on the node's head block, expiring a
// minute after the head block's time.
func newTx(t *testing.T, c *client, ops ...hivetx.Operation) *hivetx.Transaction {
	t.Helper()
	dgpo := c.result(t, "database_api.get_dynamic_global_properties", obj{})
	num, prefix, err := hivetx.RefBlock(field(t, dgpo, "head_block_id").(string))
	if err != nil {
		t.Fatal(err)
	}
	now, err := time.Parse("2006-01-02T15:04:05", field(t, dgpo, "time").(string))
	if err != nil {
		t.Fatal(err)
	}
	return &hivetx.Transaction{RefBlockNum: num, RefBlockPrefix: prefix, Expiration: now.Add(time.Minute), Operations: ops}
}

func mustOp(t *testing.T, name string, fields obj) hivetx.Operation {
	t.Helper()
	op, err := hivetx.NewOperation(name, fields)
	if err != nil {
		t.Fatal(err)
	}
	return op
}

func signed(t *testing.T, tx *hivetx.Transaction, keys ...*hivetx.PrivateKey) *hivetx.Transaction {
	t.Helper()
	for _, k := range keys {
		if err := tx.Sign(k, hivetx.MainnetChainID); err != nil {
			t.Fatal(err)
		}
	}
	return tx
}

func broadcast(t *testing.T, c *client, tx *hivetx.Transaction) response {
	t.Helper()
	return c.call(t, "condenser_api.broadcast_transaction_synchronous", []any{json.RawMessage(tx.AppendJSON(nil))})
}

// refused checks a hived error: code -32000, data.name, and the message.
func refused(t *testing.T, r response, name, message string) {
	t.Helper()
	if r.Error == nil {
		t.Fatalf("accepted, want %s", name)
	}
	var data struct{ Name string }
	_ = json.Unmarshal(r.Error.Data, &data)
	if r.Error.Code != -32000 || data.Name != name || !strings.Contains(r.Error.Message, message) {
		t.Fatalf("error %d %s %q, want -32000 %s %q", r.Error.Code, data.Name, r.Error.Message, name, message)
	}
}

func post(t *testing.T, author, permlink string) hivetx.Operation {
	return mustOp(t, "comment", obj{"parent_author": "", "parent_permlink": "hive", "author": author, "permlink": permlink,
		"title": "Hello", "body": "first post", "json_metadata": `{"tags":["hive"]}`})
}

func vote(t *testing.T, voter, author, permlink string, weight int) hivetx.Operation {
	return mustOp(t, "vote", obj{"voter": voter, "author": author, "permlink": permlink, "weight": json.Number(strconv.Itoa(weight))})
}

func TestAccountsHaveDemoKeys(t *testing.T) {
	t.Parallel()
	_, c, _ := testNode(t, 40)
	accts := c.result(t, "condenser_api.get_accounts", []any{[]any{"alice"}}).([]any)
	a := accts[0].(obj)
	for _, role := range []string{"owner", "active", "posting"} {
		keys := a[role].(obj)["key_auths"].([]any)
		want := hivesim.DemoKey("alice", role).PublicKey().String()
		if got := keys[0].([]any)[0]; got != want {
			t.Errorf("%s key %v, want %s (from the demo password)", role, got, want)
		}
	}
	if a["memo_key"] != hivesim.DemoKey("alice", "memo").PublicKey().String() {
		t.Errorf("memo key %v", a["memo_key"])
	}
}

// TestBroadcastAppliesVotesAndComments posts, votes and replies with real
// signatures and reads the results back as a demo user would.
func TestBroadcastAppliesVotesAndComments(t *testing.T) {
	t.Parallel()
	n, c, _ := testNode(t, 41)
	alice, bob := hivesim.DemoKey("alice", "posting"), hivesim.DemoKey("bob", "posting")

	tx := signed(t, newTx(t, c, post(t, "alice", "hello-hivegate")), alice)
	r := broadcast(t, c, tx)
	if r.Error != nil {
		t.Fatalf("post: %s", r.Error.Message)
	}
	res := decode(t, r.Result).(obj)
	if res["id"] != tx.ID() || res["expired"] != false || res["block_num"] == nil || res["trx_num"] == nil {
		t.Errorf("answer %v", res)
	}
	content := c.result(t, "condenser_api.get_content", []any{"alice", "hello-hivegate"}).(obj)
	if content["body"] != "first post" || content["title"] != "Hello" || content["category"] != "hive" {
		t.Errorf("get_content: %v", content)
	}

	if r := broadcast(t, c, signed(t, newTx(t, c, vote(t, "bob", "alice", "hello-hivegate", 5000)), bob)); r.Error != nil {
		t.Fatalf("vote: %s", r.Error.Message)
	}
	reply := mustOp(t, "comment", obj{"parent_author": "alice", "parent_permlink": "hello-hivegate", "author": "bob",
		"permlink": "re-hello", "title": "", "body": "nice", "json_metadata": ""})
	if r := broadcast(t, c, signed(t, newTx(t, c, reply), bob)); r.Error != nil {
		t.Fatalf("reply: %s", r.Error.Message)
	}
	content = c.result(t, "condenser_api.get_content", []any{"alice", "hello-hivegate"}).(obj)
	votes := content["active_votes"].([]any)
	if len(votes) != 1 || votes[0].(obj)["voter"] != "bob" || votes[0].(obj)["percent"] != json.Number("5000") {
		t.Errorf("active_votes %v", votes)
	}
	if content["net_votes"] != json.Number("1") || content["children"] != json.Number("1") {
		t.Errorf("net_votes %v children %v", content["net_votes"], content["children"])
	}
	replyContent := c.result(t, "condenser_api.get_content", []any{"bob", "re-hello"}).(obj)
	if replyContent["parent_author"] != "alice" || replyContent["depth"] != json.Number("1") || replyContent["root_permlink"] != "hello-hivegate" {
		t.Errorf("reply: %v", replyContent)
	}

	// Changing the vote; the same vote again is refused as hived does.
	if r := broadcast(t, c, signed(t, newTx(t, c, vote(t, "bob", "alice", "hello-hivegate", -100)), bob)); r.Error != nil {
		t.Fatalf("changed vote: %s", r.Error.Message)
	}
	same := newTx(t, c, vote(t, "bob", "alice", "hello-hivegate", -100))
	same.Expiration = same.Expiration.Add(time.Second) // another transaction, the same vote
	refused(t, broadcast(t, c, signed(t, same, bob)), "assert_exception", "identical to this vote")
	if got := len(n.Broadcasts()); got != 4 {
		t.Errorf("%d broadcasts recorded, want the 4 accepted", got)
	}
}

// TestBroadcastRefusals shows hived's refusals, each with its exception.
func TestBroadcastRefusals(t *testing.T) {
	t.Parallel()
	_, c, _ := testNode(t, 42)
	alicePosting, aliceActive := hivesim.DemoKey("alice", "posting"), hivesim.DemoKey("alice", "active")
	bobPosting := hivesim.DemoKey("bob", "posting")
	if r := broadcast(t, c, signed(t, newTx(t, c, post(t, "alice", "p")), alicePosting)); r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	voteTx := func() *hivetx.Transaction { return newTx(t, c, vote(t, "alice", "alice", "p", 100)) }

	refused(t, broadcast(t, c, voteTx()), "tx_missing_posting_auth", "Missing Posting Authority alice")
	refused(t, broadcast(t, c, signed(t, voteTx(), bobPosting)), "tx_missing_posting_auth", "Missing Posting Authority alice")
	refused(t, broadcast(t, c, signed(t, voteTx(), alicePosting, bobPosting)), "tx_irrelevant_sig", "Unnecessary signature(s) detected")
	dup := signed(t, voteTx(), alicePosting)
	dup.Signatures = append(dup.Signatures, dup.Signatures[0])
	refused(t, broadcast(t, c, dup), "tx_duplicate_sig", "Duplicate Signature detected")

	badTaPoS := voteTx()
	badTaPoS.RefBlockPrefix++
	refused(t, broadcast(t, c, signed(t, badTaPoS, alicePosting)), "transaction_tapos_exception", "transaction tapos exception")
	expired := voteTx()
	expired.Expiration = expired.Expiration.Add(-2 * time.Minute)
	refused(t, broadcast(t, c, signed(t, expired, alicePosting)), "transaction_expiration_exception", "transaction expiration exception")
	far := voteTx()
	far.Expiration = far.Expiration.Add(2 * time.Hour)
	refused(t, broadcast(t, c, signed(t, far, alicePosting)), "transaction_expiration_exception", "transaction expiration exception")

	transfer := mustOp(t, "transfer", obj{"from": "alice", "to": "bob", "amount": "0.001 HIVE", "memo": ""})
	refused(t, broadcast(t, c, signed(t, newTx(t, c, transfer), alicePosting)), "tx_missing_active_auth", "Missing Active Authority alice")
	mixed := newTx(t, c, vote(t, "alice", "alice", "p", 200), transfer)
	refused(t, broadcast(t, c, signed(t, mixed, aliceActive)), "assert_exception", "required_active.size() == 0")

	// A higher authority signs for a lower one; the same transaction twice
	// is a duplicate.
	ok := signed(t, voteTx(), aliceActive)
	if r := broadcast(t, c, ok); r.Error != nil {
		t.Fatalf("active key for a posting operation: %s", r.Error.Message)
	}
	refused(t, broadcast(t, c, ok), "transaction_exception", "Duplicate transaction check failed")

	// A signature with a high S is not canonical.
	high := signed(t, newTx(t, c, vote(t, "alice", "alice", "p", 300)), alicePosting)
	flipS(&high.Signatures[0])
	r := broadcast(t, c, high)
	if r.Error == nil || !strings.Contains(r.Error.Message, "signature is not canonical") {
		t.Errorf("high-S signature: %+v", r.Error)
	}
	// Operation-level refusals.
	refused(t, broadcast(t, c, signed(t, newTx(t, c, vote(t, "alice", "alice", "no-such-post", 100)), alicePosting)),
		"assert_exception", "Could not find comment alice/no-such-post")
}

// flipS replaces s by n - s: the same signature, high-S form.
func flipS(sig *hivetx.Signature) {
	n := [32]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
		0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41}
	borrow := 0
	for i := 31; i >= 0; i-- {
		v := int(n[i]) - int(sig[33+i]) - borrow
		borrow = 0
		if v < 0 {
			v, borrow = v+256, 1
		}
		sig[33+i] = byte(v)
	}
}

// TestPostingAuthorityThroughAccountAuths is HiveSigner's model on the
// node: an account signs for a user once the user lists it in their
// posting authority's account_auths.
func TestPostingAuthorityThroughAccountAuths(t *testing.T) {
	t.Parallel()
	_, c, _ := testNode(t, 43)
	service := hivesim.DemoKey("trent", "posting")
	if r := broadcast(t, c, signed(t, newTx(t, c, post(t, "alice", "p")), hivesim.DemoKey("alice", "posting"))); r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	follow := mustOp(t, "custom_json", obj{"required_posting_auths": []any{"alice"}, "id": "follow",
		"json": `["follow",{"follower":"alice","following":"bob","what":["blog"]}]`})
	refused(t, broadcast(t, c, signed(t, newTx(t, c, follow), service)), "tx_missing_posting_auth", "Missing Posting Authority alice")

	update := mustOp(t, "account_update", obj{"account": "alice",
		"posting": obj{"weight_threshold": json.Number("1"), "account_auths": []any{[]any{"trent", json.Number("1")}},
			"key_auths": []any{[]any{hivesim.DemoKey("alice", "posting").PublicKey().String(), json.Number("1")}}},
		"memo_key": hivesim.DemoKey("alice", "memo").PublicKey().String(), "json_metadata": ""})
	refused(t, broadcast(t, c, signed(t, newTx(t, c, update), hivesim.DemoKey("alice", "posting"))), "tx_missing_active_auth", "Missing Active Authority alice")
	if r := broadcast(t, c, signed(t, newTx(t, c, update), hivesim.DemoKey("alice", "active"))); r.Error != nil {
		t.Fatalf("account_update: %s", r.Error.Message)
	}
	acct := c.result(t, "condenser_api.get_accounts", []any{[]any{"alice"}}).([]any)[0].(obj)
	auths := acct["posting"].(obj)["account_auths"].([]any)
	if len(auths) != 1 || auths[0].([]any)[0] != "trent" {
		t.Fatalf("posting account_auths %v", auths)
	}
	if r := broadcast(t, c, signed(t, newTx(t, c, follow), service)); r.Error != nil {
		t.Fatalf("the authorized account signs: %s", r.Error.Message)
	}
	following := c.result(t, "condenser_api.get_following", []any{"alice", "", "blog", 1000}).([]any)
	found := false
	for _, f := range following {
		found = found || f.(obj)["following"] == "bob"
	}
	if !found {
		t.Errorf("get_following %v has no bob", following)
	}
	// A member account is checked in the posting role only: its active key
	// does not sign for the user.
	refused(t, broadcast(t, c, signed(t, newTx(t, c, vote(t, "alice", "alice", "p", 100)), hivesim.DemoKey("trent", "active"))),
		"tx_missing_posting_auth", "Missing Posting Authority alice")
}
