package hivesim

import (
	"cmp"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/hivegate/hivegate/hivetx"
)

// MaxTime is fc's time_point_sec::maximum() (0xffffffff seconds). hived prints it as
// "1969-12-31T23:59:59"; it marks "never" (no vesting withdrawal, paid-out comments).
var MaxTime = time.Unix(0xffffffff, 0).UTC()

// Epoch is time_point_sec 0, printed "1970-01-01T00:00:00".
var Epoch = time.Unix(0, 0).UTC()

// Asset is an amount of HIVE, HBD or VESTS in its smallest unit: hivetx's.
// The symbols' order HBD < HIVE < VESTS (as strings) is hived's asset
// numbers' order, which decides the limit-order price order.
type Asset = hivetx.Asset

// The core asset symbols.
const (
	HBD   = "HBD"
	HIVE  = "HIVE"
	VESTS = "VESTS"
)

// asset is amount (in the smallest unit) of symbol.
func asset(amount int64, symbol string) Asset {
	return Asset{Amount: amount, Precision: precision(symbol), Symbol: symbol}
}

// precision is the number of decimals of a core symbol.
func precision(symbol string) uint8 {
	if symbol == VESTS {
		return 6
	}
	return 3
}

// Price is the exchange rate base/quote of a limit order or a witness feed.
type Price struct {
	Base, Quote Asset
}

// AuthWeight is one (account or key, weight) pair of an authority.
type AuthWeight struct {
	Name   string
	Weight uint16
}

// Authority is a weighted multi-signature authority.
type Authority struct {
	WeightThreshold uint32
	AccountAuths    []AuthWeight
	KeyAuths        []AuthWeight
}

// U128 is an unsigned 128-bit integer (hived writes uint128 values as decimal strings).
type U128 struct {
	Hi, Lo uint64
}

// MaxU128 is the largest uint128, the virtual_scheduled_time of witnesses without votes.
var MaxU128 = U128{Hi: ^uint64(0), Lo: ^uint64(0)}

// Cmp compares two U128 values and returns -1, 0 or +1.
func (u U128) Cmp(v U128) int {
	return cmp.Or(cmp.Compare(u.Hi, v.Hi), cmp.Compare(u.Lo, v.Lo))
}

// String returns the decimal form.
func (u U128) String() string {
	if u.Hi == 0 {
		return strconv.FormatUint(u.Lo, 10)
	}
	x := new(big.Int).SetUint64(u.Hi)
	x.Lsh(x, 64)
	x.Or(x, new(big.Int).SetUint64(u.Lo))
	return x.String()
}

// Account is a generated chain account with the fields hived reports about it.
type Account struct {
	ID                                         int64
	Name                                       string
	Owner, Active, Posting                     Authority
	MemoKey, JSONMetadata, PostingJSONMetadata string
	Proxy                                      string // "" = no proxy
	LastOwnerUpdate, LastAccountUpdate         time.Time
	Created                                    time.Time
	Mined                                      bool
	RecoveryAccount                            string
	LastAccountRecovery                        time.Time
	PostCount                                  uint32
	CanVote                                    bool
	VotingMana, DownvoteMana                   int64
	ManaLastUpdate                             uint32

	Balance, SavingsBalance, HBDBalance, SavingsHBDBalance                            Asset
	RewardHBDBalance, RewardHiveBalance, RewardVestingBalance, RewardVestingHive      Asset
	VestingShares, DelegatedVestingShares, ReceivedVestingShares, VestingWithdrawRate Asset

	NextVestingWithdrawal            time.Time // MaxTime when not powering down
	Withdrawn, ToWithdraw            int64
	WithdrawRoutes, PendingTransfers uint16
	SavingsWithdrawRequests          uint8
	CurationRewards, PostingRewards  int64
	ProxiedVSFVotes                  [4]int64
	WitnessVotes                     []string // sorted witness names the account votes for
	LastPost, LastRootPost           time.Time
	LastVoteTime                     time.Time
	Reputation                       int64
	GovernanceVoteExpiration         time.Time
}

// Witness is a block producer candidate.
type Witness struct {
	ID                                                       int64
	Owner                                                    string
	Created                                                  time.Time
	URL                                                      string
	Votes                                                    int64
	VirtualLastUpdate, VirtualPosition, VirtualScheduledTime U128
	TotalMissed                                              uint32
	LastAslot, LastConfirmedBlockNum                         uint64
	SigningKey                                               string
	AccountCreationFee                                       Asset
	MaximumBlockSize                                         uint32
	HBDInterestRate                                          uint16
	HBDExchangeRate                                          Price
	LastHBDExchangeUpdate                                    time.Time
	RunningVersion                                           string
	HardforkTimeVote                                         time.Time // the genesis
}

// WitnessVote is one account's approval of a witness.
type WitnessVote struct {
	ID      int64  `hive:"id"`
	Witness string `hive:"witness"`
	Account string `hive:"account"`
}

// OwnerHistory is a past owner authority of an account.
type OwnerHistory struct {
	ID                     int64     `hive:"id"`
	Account                string    `hive:"account"`
	PreviousOwnerAuthority Authority `hive:"previous_owner_authority"`
	LastValidTime          time.Time `hive:"last_valid_time"`
}

// RecoveryRequest is a pending account recovery request.
type RecoveryRequest struct {
	ID                int64     `hive:"id"`
	AccountToRecover  string    `hive:"account_to_recover"`
	NewOwnerAuthority Authority `hive:"new_owner_authority"`
	Expires           time.Time `hive:"expires"`
}

// ChangeRecoveryRequest is a pending change of an account's recovery partner.
type ChangeRecoveryRequest struct {
	ID               int64     `hive:"id"`
	AccountToRecover string    `hive:"account_to_recover"`
	RecoveryAccount  string    `hive:"recovery_account"`
	EffectiveOn      time.Time `hive:"effective_on"`
}

// DeclineVotingRightsRequest is a pending request to give up governance voting.
type DeclineVotingRightsRequest struct {
	ID            int64     `hive:"id"`
	Account       string    `hive:"account"`
	EffectiveDate time.Time `hive:"effective_date"`
}

// Escrow is an escrow transfer waiting for approval or release.
type Escrow struct {
	ID                   int64     `hive:"id"`
	EscrowID             uint32    `hive:"escrow_id"`
	From                 string    `hive:"from"`
	To                   string    `hive:"to"`
	Agent                string    `hive:"agent"`
	RatificationDeadline time.Time `hive:"ratification_deadline"`
	EscrowExpiration     time.Time `hive:"escrow_expiration"`
	HBDBalance           Asset     `hive:"hbd_balance"`
	HiveBalance          Asset     `hive:"hive_balance"`
	PendingFee           Asset     `hive:"pending_fee"`
	ToApproved           bool      `hive:"to_approved"`
	AgentApproved        bool      `hive:"agent_approved"`
	Disputed             bool      `hive:"disputed"`
}

// WithdrawRoute routes part of a power-down to another account.
type WithdrawRoute struct {
	ID          int64  `hive:"id"`
	FromAccount string `hive:"from_account"`
	ToAccount   string `hive:"to_account"`
	Percent     uint16 `hive:"percent"`
	AutoVest    bool   `hive:"auto_vest"`
}

// SavingsWithdraw is a pending withdrawal from savings.
type SavingsWithdraw struct {
	ID        int64     `hive:"id"`
	From      string    `hive:"from"`
	To        string    `hive:"to"`
	Memo      string    `hive:"memo"`
	RequestID uint32    `hive:"request_id"`
	Amount    Asset     `hive:"amount"`
	Complete  time.Time `hive:"complete"`
}

// VestingDelegation is a delegation of vesting shares.
type VestingDelegation struct {
	ID                int64     `hive:"id"`
	Delegator         string    `hive:"delegator"`
	Delegatee         string    `hive:"delegatee"`
	VestingShares     Asset     `hive:"vesting_shares"`
	MinDelegationTime time.Time `hive:"min_delegation_time"`
}

// DelegationExpiration is returned delegated vesting waiting to become usable again.
type DelegationExpiration struct {
	ID            int64     `hive:"id"`
	Delegator     string    `hive:"delegator"`
	VestingShares Asset     `hive:"vesting_shares"`
	Expiration    time.Time `hive:"expiration"`
}

// ConvertRequest is an HBD-to-HIVE conversion request.
type ConvertRequest struct {
	ID             int64     `hive:"id"`
	Owner          string    `hive:"owner"`
	RequestID      uint32    `hive:"requestid"`
	Amount         Asset     `hive:"amount"`
	ConversionDate time.Time `hive:"conversion_date"`
}

// CollateralizedConvertRequest is a HIVE-to-HBD collateralized conversion request.
type CollateralizedConvertRequest struct {
	ID               int64     `hive:"id"`
	Owner            string    `hive:"owner"`
	RequestID        uint32    `hive:"requestid"`
	CollateralAmount Asset     `hive:"collateral_amount"`
	ConvertedAmount  Asset     `hive:"converted_amount"`
	ConversionDate   time.Time `hive:"conversion_date"`
}

// LimitOrder is an open order of the internal HIVE/HBD market.
type LimitOrder struct {
	ID         int64     `hive:"id"`
	Created    time.Time `hive:"created"`
	Expiration time.Time `hive:"expiration"`
	Seller     string    `hive:"seller"`
	OrderID    uint32    `hive:"orderid"`
	ForSale    int64     `hive:"for_sale"`
	SellPrice  Price     `hive:"sell_price"`
}

// Proposal is a Decentralized Hive Fund proposal.
type Proposal struct {
	ID                 int64 // equals proposal_id
	Creator, Receiver  string
	StartDate, EndDate time.Time
	DailyPay           Asset
	Subject, Permlink  string
	TotalVotes         uint64
}

// ProposalVote is one account's approval of a proposal.
type ProposalVote struct {
	ID         int64
	Voter      string
	ProposalID int64
}

// Comment is a post (depth 0) or a reply.
type Comment struct {
	ID                           int64
	Author, Permlink             string
	Category                     string
	ParentAuthor, ParentPermlink string
	Title, Body, JSONMetadata    string
	Created, LastUpdate          time.Time
	CashoutTime                  time.Time // MaxTime once paid out
	LastPayout                   time.Time // Epoch until paid out
	Depth                        uint8
	Children                     uint32
	NetRshares, AbsRshares       int64
	VoteRshares                  int64
	TotalVoteWeight              uint64
	NetVotes                     int32
	RootAuthor, RootPermlink     string
	TotalPayout, CuratorPayout   Asset // HBD, non-zero once paid out
	PendingPayout                Asset // HBD, non-zero while pending
	AuthorRewards                int64
	PercentHBD                   uint16
	root, parent                 int    // indexes into the comment slice (parent -1 for posts)
	search                       string // Title and Body lowercased, for find_text (indexText)
	block                        uint32 // block of the comment operation
}

// Vote is a vote on a comment.
type Vote struct {
	ID                      int64
	Voter, Author, Permlink string
	Weight                  uint64
	Rshares                 int64
	VotePercent             int16
	LastUpdate              time.Time
	NumChanges              int8
	voterID                 int64
	commentID               int64
}

// Follow is a follow ("blog") or mute ("ignore") relation between two accounts.
type Follow struct {
	Follower, Following string
	What                string // "blog" or "ignore"
}

// BlogEntry is a post on an account's blog: its own post or a reblog.
type BlogEntry struct {
	Blog             string
	EntryID          uint32
	Author, Permlink string
	RebloggedOn      time.Time // Epoch for the account's own posts
	comment          int
}

// Tag is a trending-tags row computed from the posts' categories.
type Tag struct {
	Name         string
	Comments     uint32
	TopPosts     uint32
	TotalPayouts Asset // HBD
}

// indexText keeps the comment's lowercased text for find_text, which would
// otherwise lowercase every comment on every call; call it whenever Title or
// Body is set.
func (c *Comment) indexText() { c.search = strings.ToLower(c.Title + " " + c.Body) }
