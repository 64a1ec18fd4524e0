package hivesim

import (
	"github.com/hivegate/hivegate/hivetx"
)

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

// AppAccount is an app's chain account added at genesis for HiveSigner's
// consent chain (user → app → broadcaster): its keys derive from
// DemoPassword like every simulated account's, and its posting authority
// also lists Broadcaster (weight 1, threshold 1), so a transaction signed
// by the broadcaster's posting key satisfies the posting authority of any
// user who lists the app.
type AppAccount struct {
	Name        string
	Broadcaster string // "": no link
}

// addAppAccounts adds the app accounts the generated chain lacks, after
// everything else is generated (so the generated data is the same with or
// without them): no history, created at the initial head.
func (ch *chain) addAppAccounts(apps []AppAccount) {
	if len(apps) > 0 {
		defer ch.indexAccounts()
	}
	for _, app := range apps {
		if ch.byName[app.Name] != nil {
			continue
		}
		created := ch.headTime0
		a := &Account{
			ID: int64(len(ch.accounts)), Name: app.Name,
			Owner: demoAuthority(app.Name, "owner"), Active: demoAuthority(app.Name, "active"), Posting: demoAuthority(app.Name, "posting"),
			MemoKey:         demoPublicKey(app.Name, "memo"),
			LastOwnerUpdate: Epoch, LastAccountUpdate: created, Created: created, RecoveryAccount: "initminer",
			LastAccountRecovery: Epoch, CanVote: true, ManaLastUpdate: uint32(created.Unix()),
			Balance: asset(0, HIVE), SavingsBalance: asset(0, HIVE), HBDBalance: asset(0, HBD), SavingsHBDBalance: asset(0, HBD),
			RewardHBDBalance: asset(0, HBD), RewardHiveBalance: asset(0, HIVE), RewardVestingBalance: asset(0, VESTS),
			RewardVestingHive: asset(0, HIVE), VestingShares: asset(1_000_000, VESTS), DelegatedVestingShares: asset(0, VESTS),
			ReceivedVestingShares: asset(0, VESTS), VestingWithdrawRate: asset(0, VESTS), NextVestingWithdrawal: MaxTime,
			LastPost: Epoch, LastRootPost: Epoch, LastVoteTime: Epoch, GovernanceVoteExpiration: MaxTime,
		}
		if app.Broadcaster != "" && app.Broadcaster != app.Name {
			a.Posting.AccountAuths = []AuthWeight{{Name: app.Broadcaster, Weight: 1}}
		}
		ch.accounts = append(ch.accounts, a)
		ch.byName[a.Name] = a
	}
}
