package hivesim

import "github.com/hivegate/hivegate/hivetx"

// The broadcast path and the database_api and condenser_api authority
// methods walk the simulated accounts' authorities with hivetx's
// sign_state walks (hivetx.CheckAuthorities, hivetx.RequiredSignatures),
// so that the node agrees with itself.

// authLevel is an authority level a transaction needs.
type authLevel = hivetx.Level

const (
	levelPosting = hivetx.LevelPosting
	levelActive  = hivetx.LevelActive
	levelOwner   = hivetx.LevelOwner
)

// accountAuthority is an account's authority of a level.
func accountAuthority(a *Account, level authLevel) *Authority {
	switch level {
	case levelOwner:
		return &a.Owner
	case levelActive:
		return &a.Active
	}
	return &a.Posting
}

// authorityOf is the hivetx.AuthorityGetter of the chain's accounts. A key
// that does not parse is the zero key, which no signature recovers to.
func (ch *chain) authorityOf(name string, level authLevel) *hivetx.Authority {
	a := ch.byName[name]
	if a == nil {
		return nil
	}
	auth := accountAuthority(a, level)
	out := &hivetx.Authority{WeightThreshold: auth.WeightThreshold}
	for _, aw := range auth.AccountAuths {
		out.AccountAuths = append(out.AccountAuths, hivetx.AccountWeight{Account: aw.Name, Weight: aw.Weight})
	}
	for _, kw := range auth.KeyAuths {
		k, _ := hivetx.ParsePublicKey(kw.Name) // the zero key when it does not parse
		out.KeyAuths = append(out.KeyAuths, hivetx.KeyWeight{Key: k, Weight: kw.Weight})
	}
	return out
}

// checkAuthorities is hivetx.CheckAuthorities over the chain's accounts.
func (ch *chain) checkAuthorities(req hivetx.Required, keys []hivetx.PublicKey) (hivetx.AuthProblem, string) {
	return hivetx.CheckAuthorities(req, keys, ch.authorityOf)
}
