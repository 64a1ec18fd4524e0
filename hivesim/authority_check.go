package hivesim

import (
	"slices"

	"github.com/hivegate/hivegate/hivetx"
)

// The authority walks of hived's protocol/transaction_util.cpp and
// transaction.cpp before HF28 (no strict or mixed authorities, no redundant
// signatures), shared by the broadcast path and the database_api and
// condenser_api authority methods so that the node agrees with itself.

// authProblem is hived's verify_authority_problem: what a transaction's
// signatures fail to satisfy.
type authProblem uint8

const (
	authOK authProblem = iota
	authMixedWithPosting
	authMissingPosting
	authMissingActive
	authMissingOwner
	authUnusedSignature
)

// newSignState is a sign_state over keys whose member accounts resolve in
// the role of get; seen, when set, is called with every authority the walk
// fetches (get_potential_signatures collects their keys).
func (ch *chain) newSignState(get func(*Account) *Authority, keys []hivetx.PublicKey, seen func(*Authority)) *signState {
	s := &signState{ch: ch, get: get, seen: seen, used: map[hivetx.PublicKey]bool{}, approved: map[string]bool{}}
	for _, k := range keys {
		s.used[k] = false
	}
	return s
}

// checkAuthorities is verify_authority_impl: a transaction needing posting
// authority may not need any other; each required posting account is met
// by its posting authority (members resolved by theirs) or its active or
// owner authority standing in, each active account by its active or owner
// authority (members by their active), each owner account by its owner
// authority; and no key may go unused. It returns the first problem and
// the account it concerns.
func (ch *chain) checkAuthorities(req hivetx.Required, keys []hivetx.PublicKey) (authProblem, string) {
	if len(req.Posting) > 0 {
		if len(req.Active) > 0 || len(req.Owner) > 0 {
			return authMixedWithPosting, ""
		}
		s := ch.newSignState(posting, keys, nil)
		for _, id := range sortedUniq(req.Posting) {
			if !s.checkAccount(id) && !s.checkAuthority(s.authOf(id, active)) && !s.checkAuthority(s.authOf(id, owner)) {
				return authMissingPosting, id
			}
		}
		if s.unused() {
			return authUnusedSignature, ""
		}
		return authOK, ""
	}
	s := ch.newSignState(active, keys, nil)
	for _, id := range sortedUniq(req.Active) {
		if !s.checkAccount(id) && !s.checkAuthority(s.authOf(id, owner)) {
			return authMissingActive, id
		}
	}
	for _, id := range sortedUniq(req.Owner) {
		if !s.checkAuthority(s.authOf(id, owner)) {
			return authMissingOwner, id
		}
	}
	if s.unused() {
		return authUnusedSignature, ""
	}
	return authOK, ""
}

// requiredSignatures is signed_transaction::get_required_signatures: the
// signatures' keys and the available keys are offered to a sign_state;
// each required posting account is checked by its posting authority only,
// or, without posting, each required owner account by its owner authority
// and then each active account by its active authority (no role stands in
// for another, and a missing authority is no error). The available keys
// the walk used are returned (keyStrings puts them in hived's order). mixed
// reports a transaction needing posting and active or owner authority.
func (ch *chain) requiredSignatures(req hivetx.Required, sigKeys, available []hivetx.PublicKey, seen func(*Authority)) (keys []hivetx.PublicKey, mixed string) {
	if len(req.Posting) > 0 {
		switch {
		case len(req.Owner) > 0:
			return nil, "!required_owner.size()"
		case len(req.Active) > 0:
			return nil, "!required_active.size()"
		}
	}
	s := ch.newSignState(posting, sigKeys, seen)
	for _, k := range available {
		if _, ok := s.used[k]; !ok {
			s.used[k] = false
		}
	}
	if len(req.Posting) > 0 {
		for _, id := range sortedUniq(req.Posting) {
			s.checkAccount(id)
		}
	} else {
		s.get = active
		for _, id := range sortedUniq(req.Owner) {
			s.checkAuthority(s.authOf(id, owner))
		}
		for _, id := range sortedUniq(req.Active) {
			s.checkAccount(id)
		}
	}
	for _, k := range available {
		if s.used[k] && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys, ""
}

// sortedUniq is a flat_set of account names: sorted, each once.
func sortedUniq(names []string) []string {
	out := slices.Clone(names)
	slices.Sort(out)
	return slices.Compact(out)
}

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
