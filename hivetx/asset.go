package hivetx

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// Asset is an amount of one of Hive's core assets, in its smallest unit
// (1.000 HIVE is Amount 1000 with Precision 3).
type Asset struct {
	Amount    int64
	Precision uint8
	// Symbol is "HIVE", "HBD" or "VESTS".
	Symbol string
}

// coreAsset describes a core asset: its precision, its NAI (database_api's
// name) and the name fc::raw still writes for it (Hive kept Steem's
// binary names so that old transactions keep their ids).
type coreAsset struct {
	symbol    string
	precision uint8
	nai       string
	wire      string
}

var coreAssets = []coreAsset{
	{"HIVE", 3, "@@000000021", "STEEM"},
	{"HBD", 3, "@@000000013", "SBD"},
	{"VESTS", 6, "@@000000037", "VESTS"},
}

func assetBySymbol(s string) (coreAsset, bool) {
	switch s {
	case "STEEM", "TESTS":
		s = "HIVE"
	case "SBD", "TBD":
		s = "HBD"
	}
	for _, a := range coreAssets {
		if a.symbol == s {
			return a, true
		}
	}
	return coreAsset{}, false
}

func assetByNAI(nai string) (coreAsset, bool) {
	for _, a := range coreAssets {
		if a.nai == nai {
			return a, true
		}
	}
	return coreAsset{}, false
}

// ParseAsset reads condenser_api's legacy form, "1.000 HIVE": the number
// of decimals must be the symbol's precision (3 for HIVE and HBD, 6 for
// VESTS).
func ParseAsset(s string) (Asset, error) {
	num, sym, ok := strings.Cut(strings.TrimSpace(s), " ")
	if !ok {
		return Asset{}, fmt.Errorf("asset %q: want \"<amount> <symbol>\"", s)
	}
	ca, ok := assetBySymbol(strings.TrimSpace(sym))
	if !ok {
		return Asset{}, fmt.Errorf("asset %q: unknown symbol", s)
	}
	whole, frac, _ := strings.Cut(num, ".")
	if len(frac) != int(ca.precision) {
		return Asset{}, fmt.Errorf("asset %q: %s takes %d decimals", s, ca.symbol, ca.precision)
	}
	neg := strings.HasPrefix(whole, "-")
	digits := strings.TrimPrefix(whole, "-") + frac
	amount, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || digits == "" || strings.ContainsAny(digits, "+-") {
		return Asset{}, fmt.Errorf("asset %q: bad amount", s)
	}
	if neg {
		amount = -amount
	}
	return Asset{Amount: amount, Precision: ca.precision, Symbol: ca.symbol}, nil
}

// assetFromNAI reads database_api's form {"amount": "1000", "precision": 3,
// "nai": "@@000000021"}.
func assetFromNAI(m map[string]any) (Asset, error) {
	nai, _ := m["nai"].(string)
	ca, ok := assetByNAI(nai)
	if !ok {
		return Asset{}, fmt.Errorf("asset: unknown nai %q", nai)
	}
	amount, err := toInt(m["amount"], 64)
	if err != nil {
		return Asset{}, fmt.Errorf("asset amount: %w", err)
	}
	prec, err := toUint(m["precision"], 8)
	if err != nil || uint8(prec) != ca.precision {
		return Asset{}, fmt.Errorf("asset: %s has precision %d", ca.symbol, ca.precision)
	}
	if len(m) != 3 {
		return Asset{}, fmt.Errorf("asset: want exactly amount, precision and nai")
	}
	return Asset{Amount: amount, Precision: ca.precision, Symbol: ca.symbol}, nil
}

// NAI is the asset's Numeric Asset Identifier, database_api's name for
// its symbol ("@@000000021" for HIVE), or "" for an unknown symbol.
func (a Asset) NAI() string {
	ca, _ := assetBySymbol(a.Symbol)
	return ca.nai
}

// String is the legacy form, "1.000 HIVE".
func (a Asset) String() string {
	v := a.Amount
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	digits := strconv.FormatInt(v, 10)
	p := int(a.Precision)
	for len(digits) <= p {
		digits = "0" + digits
	}
	if p == 0 {
		return sign + digits + " " + a.Symbol
	}
	return sign + digits[:len(digits)-p] + "." + digits[len(digits)-p:] + " " + a.Symbol
}

// appendBinary packs the asset as fc::raw does for legacy assets: int64
// amount, precision byte, the 7-byte symbol name.
func (a Asset) appendBinary(b []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(a.Amount))
	b = append(b, a.Precision)
	ca, _ := assetBySymbol(a.Symbol)
	var name [7]byte
	copy(name[:], ca.wire)
	return append(b, name[:]...)
}
