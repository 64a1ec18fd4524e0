package signer

import (
	"encoding/json"
	"testing"
)

// TestLink: a link of the consent chain holds when the account's posting
// authority lists the name with a weight meeting its threshold; a listed
// name of too small a weight says so.
func TestLink(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, posting string
		ok            bool
		why           string
	}{
		{"listed", `{"weight_threshold":1,"account_auths":[["demo.app",1]],"key_auths":[]}`, true, ""},
		{"listed among others", `{"weight_threshold":2,"account_auths":[["a.app",1],["demo.app",3]],"key_auths":[]}`, true, ""},
		{"not listed", `{"weight_threshold":1,"account_auths":[["trent",1]],"key_auths":[]}`, false, ""},
		{"below the threshold", `{"weight_threshold":2,"account_auths":[["demo.app",1]],"key_auths":[]}`, false, " (weight 1 of threshold 2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var a Account
			if err := json.Unmarshal([]byte(`{"name":"alice","posting":`+tc.posting+`}`), &a); err != nil {
				t.Fatal(err)
			}
			if ok, why := a.link("demo.app"); ok != tc.ok || why != tc.why {
				t.Errorf("link: %v %q, want %v %q", ok, why, tc.ok, tc.why)
			}
		})
	}
}
