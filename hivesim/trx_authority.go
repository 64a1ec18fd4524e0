package hivesim

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/hivegate/hivegate/hivetx"
)

// Transaction checks of a broadcast, as hived's database::_apply_transaction
// and protocol::verify_authority make them, with hived's exception names,
// codes and messages, and the authority methods built on the same checks.

// Limits hived applies to signatures and expiration.
const (
	maxTimeUntilExpiration = time.Hour // HIVE_MAX_TIME_UNTIL_EXPIRATION
	assertExceptionCode    = 10        // fc::assert_exception
	txExceptionCode        = 3000000   // transaction_exception
	missingActiveAuthCode  = 3010000   // tx_missing_active_auth
	missingOwnerAuthCode   = 3020000   // tx_missing_owner_auth
	missingPostingAuthCode = 3030000   // tx_missing_posting_auth
	irrelevantSigCode      = 3050000   // tx_irrelevant_sig
	duplicateSigCode       = 3060000   // tx_duplicate_sig
	expirationExcCode      = 4030100   // transaction_expiration_exception
	taposExcCode           = 4030200   // transaction_tapos_exception
)

// txError builds hived's error for a refused transaction: code -32000,
// message "<what>:<format with data>", data {code, name, message, stack}.
func (c *callCtx) txError(fcCode int, name, what, format string, data func(w *jw)) *rpcError {
	return &rpcError{code: codeServerError, message: what + ":" + format, data: c.writeFC(fcException{
		code: fcCode, name: name, what: what, format: format, level: "warn",
		file: "transaction_util.cpp", line: 1, method: "verify_authority", thread: "th_0", data: data})}
}

// checkTransaction refuses a transaction hived would refuse before
// applying its operations: a duplicate, bad signatures or authorities, a
// TaPoS block that is not on this chain, an expiration out of range.
func (c *callCtx) checkTransaction(tx *hivetx.Transaction) *rpcError {
	n := c.n
	if n.ledger.applied[tx.ID()] {
		return c.txError(txExceptionCode, "transaction_exception", "transaction exception",
			"Duplicate transaction check failed", func(w *jw) { w.kstr("trx_ix", tx.ID()) })
	}
	if e := c.verifyAuthority(tx); e != nil {
		return e
	}
	if e := c.checkTaPoS(tx); e != nil {
		return e
	}
	now := c.now()
	if tx.Expiration.After(now.Add(maxTimeUntilExpiration)) || !now.Before(tx.Expiration) {
		return c.txError(expirationExcCode, "transaction_expiration_exception", "transaction expiration exception",
			"", func(w *jw) {
				w.ktime("trx.expiration", tx.Expiration)
				w.ktime("now", now)
				w.knum("max_til_exp", int64(maxTimeUntilExpiration/time.Second))
			})
	}
	return nil
}

// checkTaPoS checks ref_block_num and ref_block_prefix against the most
// recent block whose number has those low 16 bits.
func (c *callCtx) checkTaPoS(tx *hivetx.Transaction) *rpcError {
	head := c.head
	num := head - (head-uint32(tx.RefBlockNum))&0xffff
	var want uint32
	if num <= head && num > 0 {
		_, want, _ = hivetx.RefBlock(c.n.ch.blockID(num))
	}
	if num == 0 || num > head || want != tx.RefBlockPrefix {
		return c.txError(taposExcCode, "transaction_tapos_exception", "transaction tapos exception", "", func(w *jw) {
			w.knum("trx.ref_block_prefix", int64(tx.RefBlockPrefix))
			w.knum("tapos_block_summary", int64(want))
		})
	}
	return nil
}

// verifyAuthority is hived's verify_authority (checkAuthorities) with
// hived's errors: a transaction needing posting authority may not need any
// other; each required account's authority (posting, or a higher one) must
// be met by the signatures, and no signature may go unused.
func (c *callCtx) verifyAuthority(tx *hivetx.Transaction) *rpcError {
	keys, err := c.signatureKeys(tx)
	return c.authorize(tx.Required(), keys, err)
}

// authorize is hived's error for the first authority problem of a
// transaction requiring req and signed by keys, or err when reading them failed.
func (c *callCtx) authorize(req hivetx.Required, keys []hivetx.PublicKey, err *rpcError) *rpcError {
	if err != nil {
		return err
	}
	return c.authorityError(c.n.ch.checkAuthorities(req, keys))
}

// authorityError is hived's exception for a verify_authority problem.
func (c *callCtx) authorityError(p hivetx.AuthProblem, id string) *rpcError {
	ch := c.n.ch
	missing := func(code int, name, what, role string) *rpcError {
		return c.txError(code, name, what, "Missing "+role+" Authority "+id, func(w *jw) {
			w.kstr("id", id)
			if a := ch.byName[id]; a != nil {
				w.members(false, "posting", &a.Posting, "active", &a.Active, "owner", &a.Owner)
			}
		})
	}
	switch p {
	case hivetx.AuthMixedWithPosting:
		return c.opFail("required_authorities.required_active.size() == 0", "")
	case hivetx.AuthMissingPosting:
		return missing(missingPostingAuthCode, "tx_missing_posting_auth", "missing required posting authority", "Posting")
	case hivetx.AuthMissingActive:
		return missing(missingActiveAuthCode, "tx_missing_active_auth", "missing required active authority", "Active")
	case hivetx.AuthMissingOwner:
		return missing(missingOwnerAuthCode, "tx_missing_owner_auth", "missing required owner authority", "Owner")
	case hivetx.AuthUnusedSignature:
		return c.txError(irrelevantSigCode, "tx_irrelevant_sig", "irrelevant signature included", "Unnecessary signature(s) detected", nil)
	}
	return nil
}

// signatureKeys recovers each signature's key for Hive mainnet's chain id:
// a signature that is not canonical (low S) or recovers no key is an
// assertion failure, a key recovered twice a duplicate signature.
func (c *callCtx) signatureKeys(tx *hivetx.Transaction) ([]hivetx.PublicKey, *rpcError) {
	digest := tx.Digest(hivetx.MainnetChainID)
	seen := map[hivetx.PublicKey]bool{}
	var keys []hivetx.PublicKey
	for _, sig := range tx.Signatures {
		if !sig.IsCanonical() {
			return nil, c.opFail("is_canonical( c, check_canonical )", "signature is not canonical")
		}
		k, err := sig.Recover(digest)
		if err != nil {
			return nil, c.opFail("pk", "Unable to reconstruct public key from signature")
		}
		if seen[k] {
			return nil, c.txError(duplicateSigCode, "tx_duplicate_sig", "duplicate signature included", "Duplicate Signature detected", nil)
		}
		seen[k] = true
		keys = append(keys, k)
	}
	return keys, nil
}

// The authority methods of database_api and condenser_api
// (verify_authority, verify_account_authority, get_required_signatures,
// get_potential_signatures), on the same sign_state walks as the broadcast
// path (hivetx.CheckAuthorities): a transaction broadcast accepts is verified,
// one it refuses is refused with the same error.

// trxAuth reads what a transaction parameter requires and the keys its
// signatures recover to, as broadcast reads them (hivetx). A transaction
// with an operation hivetx cannot pack has no digest: unsigned, its
// requirements come from opSigners; signed, it is refused as broadcast
// refuses it.
func (c *callCtx) trxAuth(t *simTrx) (hivetx.Required, []hivetx.PublicKey, *rpcError) {
	raw, _ := json.Marshal(t.raw) // numbers are json.Number: their digits are kept
	tx, perr := hivetx.ParseTransaction(raw)
	if perr == nil {
		keys, err := c.signatureKeys(tx)
		return tx.Required(), keys, err
	}
	if len(t.signatures) > 0 {
		return hivetx.Required{}, nil, c.parseError(perr.Error())
	}
	req, err := c.requirements(t)
	return req, nil, err
}

// verifyTrx is verify_authority: the signatures' keys must satisfy the
// transaction's authorities exactly as broadcast checks them (no TaPoS,
// expiration or duplicate check).
func (c *callCtx) verifyTrx(t *simTrx) *rpcError { return c.authorize(c.trxAuth(t)) }

// signingKeys is get_required_signatures' walk over t with the available
// keys; seen sees every authority fetched. A required account that does
// not exist is chainbase's unknown key, as hived's getters throw it.
func (c *callCtx) signingKeys(t *simTrx, available []hivetx.PublicKey, seen func(*hivetx.Authority)) ([]hivetx.PublicKey, *rpcError) {
	req, sigKeys, err := c.trxAuth(t)
	if err != nil {
		return nil, err
	}
	ch := c.n.ch
	for _, names := range [][]string{req.Posting, req.Active, req.Owner} {
		for _, n := range names {
			if ch.byName[n] == nil {
				return nil, c.unknownKey()
			}
		}
	}
	keys, mixed := hivetx.RequiredSignatures(req, sigKeys, available, ch.authorityOf, seen)
	if mixed != "" {
		return nil, c.assertFail(mixed, "")
	}
	return keys, nil
}

// requiredKeys is get_required_signatures: the available keys the
// sign_state walk uses (posting accounts by posting authority only; owner,
// then active accounts by theirs). An authority they do not satisfy is no
// error: the keys that count towards it are returned.
func (c *callCtx) requiredKeys(t *simTrx, availableV []string) ([]string, *rpcError) {
	available := make([]hivetx.PublicKey, 0, len(availableV))
	for _, s := range availableV {
		if k, err := hivetx.ParsePublicKey(s); err == nil {
			available = append(available, k)
		}
	}
	keys, err := c.signingKeys(t, available, nil)
	if err != nil {
		return nil, err
	}
	return keyStrings(keys), nil
}

// keyStrings is keys in hived's order (by their bytes), in text form.
func keyStrings(keys []hivetx.PublicKey) []string {
	slices.SortFunc(keys, func(a, b hivetx.PublicKey) int { return bytes.Compare(a[:], b[:]) })
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.String()
	}
	return out
}

// potentialKeys is get_potential_signatures: get_required_signatures' walk
// with no available key, answering every key of every authority it fetched
// (members of account authorities at most HIVE_MAX_SIG_CHECK_DEPTH deep,
// in the role the walk resolves them), in hived's order (by their bytes).
func (c *callCtx) potentialKeys(t *simTrx) ([]string, *rpcError) {
	set := map[hivetx.PublicKey]bool{}
	_, err := c.signingKeys(t, nil, func(a *hivetx.Authority) {
		for _, kw := range a.KeyAuths {
			if kw.Key != (hivetx.PublicKey{}) { // a key that did not parse (authorityOf)
				set[kw.Key] = true
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return keyStrings(slices.Collect(maps.Keys(set))), nil
}

// accountAuthorized is verify_account_authority's has_authorization: the
// signers, taken as a transaction's signature keys, satisfy the account's
// authority of the level as verify_authority checks it, unused signers
// included (false). A signer that is no public key signs nothing.
func (c *callCtx) accountAuthorized(account string, level authLevel, signers []string) bool {
	keys := make([]hivetx.PublicKey, 0, len(signers))
	for _, s := range signers {
		k, err := hivetx.ParsePublicKey(s)
		if err != nil {
			return false
		}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	var req hivetx.Required
	require(&req, level, account)
	p, _ := c.n.ch.checkAuthorities(req, keys)
	return p == hivetx.AuthOK
}

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
