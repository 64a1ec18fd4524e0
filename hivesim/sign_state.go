package hivesim

import "github.com/hivegate/hivegate/hivetx"

// hived's limits on resolving an authority (config.hpp, as
// database::_apply_transaction passes them to verify_authority since HF20).
const (
	maxSigCheckDepth       = 2   // HIVE_MAX_SIG_CHECK_DEPTH: account authorities followed this deep
	maxSigCheckAccounts    = 125 // HIVE_MAX_SIG_CHECK_ACCOUNTS: account authorities resolved per required account
	maxAuthorityMembership = 40  // HIVE_MAX_AUTHORITY_MEMBERSHIP: entries looked at per authority
)

// signState is hived's sign_state (protocol/sign_state.hpp) before HF28's
// strict and mixed authorities: the keys that signed and which of them an
// authority has used, the accounts already found to approve (each
// resolved once, then counted by its weight wherever it is listed), and
// how many account authorities the current required account has resolved.
// Member accounts are resolved in the state's role (get): a posting
// authority's account_auths by their posting authority, as hived's
// get_posting does, so a user who lists an app whose posting authority
// lists a broadcaster is satisfied by the broadcaster's posting key.
type signState struct {
	ch           *chain
	get          func(*Account) *Authority
	seen         func(*Authority) // sees every authority get returns (nil: none)
	used         map[hivetx.PublicKey]bool
	approved     map[string]bool
	accountAuths int // sign_state::account_auth_count
}

func (s *signState) signedBy(key string) bool {
	k, err := hivetx.ParsePublicKey(key)
	if err != nil {
		return false
	}
	if _, ok := s.used[k]; ok {
		s.used[k] = true
		return true
	}
	return false
}

// checkAccount is sign_state::check_authority(id): the account's authority
// in the state's role, true at once if the account already approved.
func (s *signState) checkAccount(name string) bool {
	auth := s.authOf(name, s.get)
	if auth == nil {
		return false
	}
	if s.approved[name] {
		return true
	}
	s.accountAuths = 1
	return s.check(auth, 0)
}

// authOf is an account's authority of a role (get), nil for no such
// account, shown to seen as hived's getters show every authority they
// return.
func (s *signState) authOf(name string, get func(*Account) *Authority) *Authority {
	a := s.ch.byName[name]
	if a == nil {
		return nil
	}
	auth := get(a)
	if s.seen != nil {
		s.seen(auth)
	}
	return auth
}

// checkAuthority is sign_state::check_authority(auth, id, role): a higher
// role's authority standing in for the required one.
func (s *signState) checkAuthority(auth *Authority) bool {
	if auth == nil {
		return false
	}
	s.accountAuths = 0
	return s.check(auth, 0)
}

// check is check_authority_impl: keys first, then accounts, summing the
// weights of those that sign or approve until the threshold is met. An
// account not yet approved is resolved only above maxSigCheckDepth and
// while fewer than maxSigCheckAccounts have been; an authority whose first
// maxAuthorityMembership entries do not meet the threshold fails.
func (s *signState) check(auth *Authority, depth int) bool {
	var total uint32
	membership := 0
	more := func() bool {
		membership++
		return membership < maxAuthorityMembership
	}
	for _, kw := range auth.KeyAuths {
		if s.signedBy(kw.Name) {
			total += uint32(kw.Weight)
			if total >= auth.WeightThreshold {
				return true
			}
		}
		if !more() {
			return false
		}
	}
	for _, aw := range auth.AccountAuths {
		if s.approved[aw.Name] {
			total += uint32(aw.Weight)
			if total >= auth.WeightThreshold {
				return true
			}
		} else {
			if depth == maxSigCheckDepth {
				continue
			}
			if s.accountAuths >= maxSigCheckAccounts {
				return false
			}
			s.accountAuths++
			if a := s.authOf(aw.Name, s.get); a != nil && s.check(a, depth+1) {
				s.approved[aw.Name] = true
				total += uint32(aw.Weight)
				if total >= auth.WeightThreshold {
					return true
				}
			}
		}
		if !more() {
			return false
		}
	}
	return total >= auth.WeightThreshold // a threshold of 0 is met with no signature, as in hived
}

func (s *signState) unused() bool {
	for _, u := range s.used {
		if !u {
			return true
		}
	}
	return false
}
