package hivetx

import "slices"

// The authority walks of hived's protocol/sign_state.cpp and
// transaction_util.cpp before HF28 (no strict or mixed authorities, no
// redundant signatures): whether a transaction's signatures satisfy the
// authorities it requires (verify_authority), and which of the available
// keys would (get_required_signatures). The authorities come from an
// AuthorityGetter, so the walks run over any account store.

// hived's limits on resolving an authority (config.hpp, as
// database::_apply_transaction passes them to verify_authority since HF20).
const (
	MaxSigCheckDepth       = 2   // HIVE_MAX_SIG_CHECK_DEPTH: account authorities followed this deep
	MaxSigCheckAccounts    = 125 // HIVE_MAX_SIG_CHECK_ACCOUNTS: account authorities resolved per required account
	MaxAuthorityMembership = 40  // HIVE_MAX_AUTHORITY_MEMBERSHIP: entries looked at per authority
)

// Level is one of an account's authorities (the Role of its key).
type Level uint8

// The levels, from the lowest.
const (
	LevelPosting Level = iota
	LevelActive
	LevelOwner
)

// AuthorityGetter returns an account's authority of a level, or nil when
// there is no such account.
type AuthorityGetter func(account string, level Level) *Authority

// AuthProblem is hived's verify_authority problem: what a transaction's
// signatures fail to satisfy.
type AuthProblem uint8

// The problems CheckAuthorities reports.
const (
	AuthOK               AuthProblem = iota
	AuthMixedWithPosting             // posting authority required together with active or owner
	AuthMissingPosting
	AuthMissingActive
	AuthMissingOwner
	AuthUnusedSignature // a signature no authority used
)

// signState is hived's sign_state (protocol/sign_state.hpp) before HF28's
// strict and mixed authorities: the keys that signed and which of them an
// authority has used, the accounts already found to approve (each
// resolved once, then counted by its weight wherever it is listed), and
// how many account authorities the current required account has resolved.
// Member accounts are resolved in the state's level: a posting authority's
// account_auths by their posting authority, as hived's get_posting does, so
// a user who lists an app whose posting authority lists a broadcaster is
// satisfied by the broadcaster's posting key.
type signState struct {
	get          AuthorityGetter
	level        Level
	seen         func(*Authority) // sees every authority get returns (nil: none)
	used         map[PublicKey]bool
	approved     map[string]bool
	accountAuths int // sign_state::account_auth_count
}

func newSignState(get AuthorityGetter, level Level, keys []PublicKey, seen func(*Authority)) *signState {
	s := &signState{get: get, level: level, seen: seen, used: map[PublicKey]bool{}, approved: map[string]bool{}}
	for _, k := range keys {
		s.used[k] = false
	}
	return s
}

// CheckAuthorities is verify_authority_impl for a transaction requiring
// req and signed by keys: a transaction needing posting authority may not
// need any other; each required posting account is met by its posting
// authority (members resolved by theirs) or its active or owner authority
// standing in, each active account by its active or owner authority
// (members by their active), each owner account by its owner authority;
// and no key may go unused. It returns the first problem and the account
// it concerns.
func CheckAuthorities(req Required, keys []PublicKey, get AuthorityGetter) (AuthProblem, string) {
	if len(req.Posting) > 0 {
		if len(req.Active) > 0 || len(req.Owner) > 0 {
			return AuthMixedWithPosting, ""
		}
		s := newSignState(get, LevelPosting, keys, nil)
		for _, id := range sortedUniq(req.Posting) {
			if !s.checkAccount(id) && !s.checkAuthority(s.authOf(id, LevelActive)) &&
				!s.checkAuthority(s.authOf(id, LevelOwner)) {
				return AuthMissingPosting, id
			}
		}
		return s.unusedProblem(), ""
	}
	s := newSignState(get, LevelActive, keys, nil)
	for _, id := range sortedUniq(req.Active) {
		if !s.checkAccount(id) && !s.checkAuthority(s.authOf(id, LevelOwner)) {
			return AuthMissingActive, id
		}
	}
	for _, id := range sortedUniq(req.Owner) {
		if !s.checkAuthority(s.authOf(id, LevelOwner)) {
			return AuthMissingOwner, id
		}
	}
	return s.unusedProblem(), ""
}

// RequiredSignatures is signed_transaction::get_required_signatures: the
// signatures' keys and the available keys are offered to a sign_state;
// each required posting account is checked by its posting authority only,
// or, without posting, each required owner account by its owner authority
// and then each active account by its active authority (no level stands in
// for another, and a missing authority is no error). The available keys
// the walk used are returned in the order given; seen, when set, is called
// with every authority the walk fetches (get_potential_signatures collects
// their keys). mixed is the assertion a transaction needing posting and
// active or owner authority fails.
func RequiredSignatures(req Required, sigKeys, available []PublicKey, get AuthorityGetter,
	seen func(*Authority)) (keys []PublicKey, mixed string) {
	if len(req.Posting) > 0 {
		switch {
		case len(req.Owner) > 0:
			return nil, "!required_owner.size()"
		case len(req.Active) > 0:
			return nil, "!required_active.size()"
		}
	}
	s := newSignState(get, LevelPosting, sigKeys, seen)
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
		s.level = LevelActive
		for _, id := range sortedUniq(req.Owner) {
			s.checkAuthority(s.authOf(id, LevelOwner))
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

// checkAccount is sign_state::check_authority(id): the account's authority
// in the state's level, true at once if the account already approved.
func (s *signState) checkAccount(name string) bool {
	auth := s.authOf(name, s.level)
	if auth == nil {
		return false
	}
	if s.approved[name] {
		return true
	}
	s.accountAuths = 1
	return s.check(auth, 0)
}

// authOf is an account's authority of a level, nil for no such account,
// shown to seen as hived's getters show every authority they return.
func (s *signState) authOf(name string, level Level) *Authority {
	auth := s.get(name, level)
	if auth != nil && s.seen != nil {
		s.seen(auth)
	}
	return auth
}

// checkAuthority is sign_state::check_authority(auth, id, role): a higher
// level's authority standing in for the required one.
func (s *signState) checkAuthority(auth *Authority) bool {
	if auth == nil {
		return false
	}
	s.accountAuths = 0
	return s.check(auth, 0)
}

// check is check_authority_impl: keys first, then accounts, summing the
// weights of those that sign or approve until the threshold is met. An
// account not yet approved is resolved only above MaxSigCheckDepth and
// while fewer than MaxSigCheckAccounts have been; an authority whose first
// MaxAuthorityMembership entries do not meet the threshold fails.
func (s *signState) check(auth *Authority, depth int) bool {
	var total uint32
	membership := 0
	more := func() bool {
		membership++
		return membership < MaxAuthorityMembership
	}
	for _, kw := range auth.KeyAuths {
		if _, ok := s.used[kw.Key]; ok {
			s.used[kw.Key] = true
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
		if s.approved[aw.Account] {
			total += uint32(aw.Weight)
			if total >= auth.WeightThreshold {
				return true
			}
		} else {
			if depth == MaxSigCheckDepth {
				continue
			}
			if s.accountAuths >= MaxSigCheckAccounts {
				return false
			}
			s.accountAuths++
			if a := s.authOf(aw.Account, s.level); a != nil && s.check(a, depth+1) {
				s.approved[aw.Account] = true
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

// unusedProblem is AuthUnusedSignature when a key signed that no authority
// used, AuthOK otherwise.
func (s *signState) unusedProblem() AuthProblem {
	for _, u := range s.used {
		if !u {
			return AuthUnusedSignature
		}
	}
	return AuthOK
}
