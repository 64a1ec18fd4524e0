package hivesim

import "github.com/hivegate/hivegate/hivetx"

// DemoPassword is the password of every simulated account. Each account's
// owner, active, posting and memo keys are derived from it as Hive wallets
// derive keys from a master password (dhive's PrivateKey.fromLogin):
// sha256(account + role + password). It is public on purpose: the demo's
// users log in with it, and the node checks their signatures for real.
const DemoPassword = "hivegate-demo"

// DemoKey returns the private key of one role ("owner", "active",
// "posting", "memo") of a simulated account.
func DemoKey(account, role string) *hivetx.PrivateKey {
	return hivetx.PrivateKeyFromLogin(account, DemoPassword, role)
}

// demoPublicKey is the "STM…" public key of an account's role.
func demoPublicKey(account, role string) string {
	return DemoKey(account, role).PublicKey().String()
}

// demoAuthority is a one-key authority of an account's role.
func demoAuthority(account, role string) Authority {
	return Authority{WeightThreshold: 1, KeyAuths: []AuthWeight{{Name: demoPublicKey(account, role), Weight: 1}}}
}
