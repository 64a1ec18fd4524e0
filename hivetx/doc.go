// Package hivetx is Hive's transaction format: the operations hivegate
// signs or checks, their binary serialization (fc::raw, as hived packs
// them), the signing digest with the chain id, transaction ids, and keys —
// public keys in their "STM…" text form, private keys in Wallet Import
// Format or derived from an account name, role and password as Hive
// wallets do.
//
// The elliptic-curve work (secp256k1 keys, compact recoverable ECDSA
// signatures) is github.com/decred/dcrd/dcrec/secp256k1/v4's; hashes come
// from the standard library and golang.org/x/crypto. What this package adds
// is what no library knows: Hive's byte layout and its rule that a
// signature must be "canonical" (see IsCanonical).
//
// A transaction is read from either JSON shape hived speaks — condenser_api's
// legacy ["vote", {...}] operations with "1.000 HIVE" assets, or
// database_api's {"type": "vote_operation", "value": {...}} with NAI assets —
// into typed values, and written back as condenser JSON: the JSON sent to a
// node and the bytes signed always describe the same values, whatever
// spelling the input used (a weight written "10000" is sent as 10000).
//
// CheckAuthorities and RequiredSignatures are hived's sign_state walks
// (verify_authority, get_required_signatures) over the authorities an
// AuthorityGetter supplies: hivesim runs them over its simulated accounts.
//
// AccountField reads the accounts operations name (signers, parties,
// authorities) straight from their JSON, in either shape, with jsonwire:
// the gateway screens broadcasts by it and the auth service finds signers.
package hivetx
