package hivesim

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	"github.com/hivegate/hivegate/hivetx"
)

// The authority methods of database_api and condenser_api
// (verify_authority, verify_account_authority, get_required_signatures,
// get_potential_signatures), on the same sign_state walks as the broadcast
// path (authority_check.go): a transaction broadcast accepts is verified,
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
func (c *callCtx) signingKeys(t *simTrx, available []hivetx.PublicKey, seen func(*Authority)) ([]hivetx.PublicKey, *rpcError) {
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
	keys, mixed := ch.requiredSignatures(req, sigKeys, available, seen)
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
	_, err := c.signingKeys(t, nil, func(a *Authority) {
		for _, kw := range a.KeyAuths {
			if k, err := hivetx.ParsePublicKey(kw.Name); err == nil {
				set[k] = true
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
	return p == authOK
}
