package hivesim

import (
	"strconv"

	"github.com/hivegate/hivegate/hivetx"
)

// checkAuthorityUpdate refuses an account_update or account_update2 as
// hived's evaluators do (hive_evaluator.cpp): the account must exist, each
// new authority may have at most HIVE_MAX_AUTHORITY_MEMBERSHIP entries
// (validate_auth_size, owner, active, posting), and each account it names
// must exist (verify_authority_accounts_exist, owner, active, posting).
// Neither an impossible authority (weights below the threshold) nor a
// threshold of 0 is refused: hived checks is_impossible only when an
// account is recovered.
func (c *callCtx) checkAuthorityUpdate(op hivetx.Operation) *rpcError {
	ch := c.n.ch
	name := op.String("account")
	if ch.byName[name] == nil {
		return c.opFail("account != nullptr", "Account \""+name+"\" must exist.")
	}
	roles := []string{"owner", "active", "posting"}
	for _, role := range roles {
		if a, ok := op.Get(role).(hivetx.Authority); ok {
			if n := len(a.AccountAuths) + len(a.KeyAuths); n > maxAuthorityMembership {
				return c.opFail("size <= HIVE_MAX_AUTHORITY_MEMBERSHIP", "Authority membership exceeded. Max: "+
					strconv.Itoa(maxAuthorityMembership)+" Current: "+strconv.Itoa(n))
			}
		}
	}
	for _, role := range roles {
		if a, ok := op.Get(role).(hivetx.Authority); ok {
			for _, aw := range a.AccountAuths {
				if ch.byName[aw.Account] == nil {
					return c.opFail("a != nullptr", "New "+role+" authority on account "+name+
						" references non-existing account "+aw.Account)
				}
			}
		}
	}
	return nil
}
