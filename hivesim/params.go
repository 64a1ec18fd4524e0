package hivesim

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// The conversions below follow fc's variant rules, which decide what hived accepts
// in request parameters and which error it raises otherwise.

// variantType names a decoded JSON value the way fc prints variant types.
func variantType(v any) string {
	switch v.(type) {
	case nil:
		return "null_type"
	case bool:
		return "bool_type"
	case json.Number:
		return "int64_type"
	case string:
		return "string_type"
	case []any:
		return "array_type"
	default:
		return "object_type"
	}
}

// numberBits converts a JSON number to the 64-bit pattern fc would hold.
func numberBits(n json.Number) (uint64, bool) {
	s := string(n)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return uint64(i), true
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		return u, true
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 {
			return uint64(int64(f)), true
		}
		if f >= math.MaxUint64 {
			return math.MaxUint64, true
		}
		return uint64(f), true
	}
	return 0, false
}

func (c *callCtx) asU64(v any) (uint64, *rpcError) {
	switch x := v.(type) {
	case nil:
		return 0, nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case json.Number:
		if u, ok := numberBits(x); ok {
			return u, nil
		}
		return 0, c.parseError("Couldn't parse uint64_t")
	case string:
		s := strings.TrimSpace(x)
		if u, err := strconv.ParseUint(s, 10, 64); err == nil {
			return u, nil
		}
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return uint64(i), nil
		}
		return 0, c.parseError("Couldn't parse uint64_t")
	default:
		return 0, c.badCast("Invalid cast from " + variantType(v) + " to uint64")
	}
}

func (c *callCtx) asI64(v any) (int64, *rpcError) {
	switch x := v.(type) {
	case string:
		i, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		if err != nil {
			return 0, c.parseError("Couldn't parse int64_t")
		}
		return i, nil
	case []any, map[string]any:
		return 0, c.badCast("Invalid cast from " + variantType(v) + " to int64")
	}
	u, err := c.asU64(v)
	return int64(u), err
}

// asU32 converts like fc's as<uint32_t>(): through uint64, truncated (so -1 becomes 4294967295).
func (c *callCtx) asU32(v any) (uint32, *rpcError) {
	u, err := c.asU64(v)
	return uint32(u), err
}

func (c *callCtx) asBool(v any) (bool, *rpcError) {
	switch x := v.(type) {
	case nil:
		return false, nil
	case bool:
		return x, nil
	case json.Number:
		u, _ := numberBits(x)
		return u != 0, nil
	case string:
		switch x {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return false, c.badCast(`Cannot convert string to bool (only "true" or "false" can be converted)`)
	default:
		return false, c.badCast("Invalid cast from " + variantType(v) + " to bool")
	}
}

func (c *callCtx) asString(v any) (string, *rpcError) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case json.Number:
		return string(x), nil
	default:
		return "", c.badCast("Invalid cast from " + variantType(v) + " to string")
	}
}

// asName converts to account_name_type, a fixed 16-byte string.
func (c *callCtx) asName(v any) (string, *rpcError) {
	s, err := c.asString(v)
	if err != nil {
		return "", err
	}
	if len(s) > 16 {
		return "", c.assertFail("in_len <= sizeof(data)",
			"Input too large: `"+s+"` ("+strconv.Itoa(len(s))+") for fixed size string: (16)")
	}
	return s, nil
}

// asTime converts to time_point_sec ("YYYY-MM-DDTHH:MM:SS"). Seconds wrap to 32 bits as in fc,
// which makes "1969-12-31T23:59:59" equal to the maximum time.
func (c *callCtx) asTime(v any) (time.Time, *rpcError) {
	s, err := c.asString(v)
	if err != nil {
		return time.Time{}, err
	}
	if s == "" {
		return Epoch, nil
	}
	s = strings.TrimSuffix(s, "Z")
	if i := strings.IndexByte(s, '.'); i >= 0 {
		s = s[:i]
	}
	t, perr := time.Parse(timeLayout, s)
	if perr != nil {
		return time.Time{}, c.parseError("Unable to convert ISO-formatted string to fc::time_point_sec")
	}
	return time.Unix(int64(uint32(t.Unix())), 0).UTC(), nil
}

// asArray is variant::get_array().
func (c *callCtx) asArray(v any) ([]any, *rpcError) {
	a, ok := v.([]any)
	if !ok {
		return nil, c.badCast("Invalid cast from " + variantType(v) + " to Array")
	}
	return a, nil
}

// asObject is variant::get_object(); null counts as an empty object.
func (c *callCtx) asObject(v any) (map[string]any, *rpcError) {
	switch x := v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return x, nil
	}
	return nil, c.badCast("Invalid cast from " + variantType(v) + " to Object")
}

func (c *callCtx) asU128(v any) (U128, *rpcError) {
	s, err := c.asString(v)
	if err != nil {
		return U128{}, err
	}
	if s == "" {
		return U128{}, nil
	}
	x, ok := new(big.Int).SetString(s, 10)
	if !ok || x.Sign() < 0 || x.BitLen() > 128 {
		return U128{}, c.parseError("Couldn't parse uint128")
	}
	lo := new(big.Int).And(x, new(big.Int).SetUint64(math.MaxUint64)).Uint64()
	hi := new(big.Int).Rsh(x, 64).Uint64()
	return U128{Hi: hi, Lo: lo}, nil
}

// naiSymbols and legacySymbols map NAIs and legacy symbols to the asset symbols.
var (
	naiSymbols    = map[string]string{"@@000000013": HBD, "@@000000021": HIVE, "@@000000037": VESTS}
	legacySymbols = map[string]string{"HBD": HBD, "SBD": HBD, "TBD": HBD, "HIVE": HIVE, "STEEM": HIVE, "TESTS": HIVE, "VESTS": VESTS}
)

// asAsset parses a database_api asset {amount, precision, nai}; a legacy string is also accepted.
func (c *callCtx) asAsset(v any) (Asset, *rpcError) {
	if s, ok := v.(string); ok {
		return c.parseLegacyAsset(s)
	}
	o, ok := v.(map[string]any)
	if !ok {
		return Asset{}, c.badCast("Invalid cast from " + variantType(v) + " to Object")
	}
	amt, ok := o["amount"].(string)
	if !ok {
		return Asset{}, c.assertFail("v_object[ \"amount\" ].is_string()", "Expected a string type for value 'amount'.")
	}
	nai, _ := o["nai"].(string)
	sym, ok := naiSymbols[nai]
	if !ok {
		return Asset{}, c.assertFail("false", "Unknown NAI '"+nai+"'")
	}
	n, perr := strconv.ParseInt(amt, 10, 64)
	if perr != nil {
		return Asset{}, c.parseError("Couldn't parse int64_t")
	}
	return asset(n, sym), nil
}

func (c *callCtx) parseLegacyAsset(s string) (Asset, *rpcError) {
	num, sym, ok := strings.Cut(strings.TrimSpace(s), " ")
	a := Asset{Symbol: legacySymbols[sym]}
	if !ok || a.Symbol == "" {
		return Asset{}, c.parseError("Couldn't parse asset '" + s + "'")
	}
	whole, frac, _ := strings.Cut(num, ".")
	a.Precision = precision(a.Symbol)
	if len(frac) != int(a.Precision) {
		return Asset{}, c.assertFail("dot_pos != std::string::npos", "Asset precision mismatch in '"+s+"'")
	}
	var err error
	if a.Amount, err = strconv.ParseInt(whole+frac, 10, 64); err != nil {
		return Asset{}, c.parseError("Couldn't parse int64_t")
	}
	return a, nil
}

func (c *callCtx) asPrice(v any) (Price, *rpcError) {
	o, ok := v.(map[string]any)
	if !ok {
		return Price{}, c.badCast("Invalid cast from " + variantType(v) + " to Object")
	}
	in := &conv{}
	base := get(in, c.asAsset, o["base"])
	quote := get(in, c.asAsset, o["quote"])
	if in.err != nil {
		return Price{}, in.err
	}
	return Price{Base: base, Quote: quote}, nil
}

// elem returns element i of a start array and whether it was present; fc's pair and
// tuple conversions leave missing elements at their default value.
func elem(a []any, i int) (any, bool) {
	if i < len(a) {
		return a[i], true
	}
	return nil, false
}

// enumValue parses an fc enum given by name, integer or numeric string.
// It returns the numeric value; unknown names raise fc's bad-cast error.
func (c *callCtx) enumValue(v any, names []string, enumName string, def int) (int, *rpcError) {
	switch x := v.(type) {
	case nil:
		return def, nil
	case string:
		for i, n := range names {
			if n == x {
				return i, nil
			}
		}
		i, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return 0, c.badCast("invalid name '" + x + "' in enum '" + enumName + "'")
		}
		if i < 0 || int(i) >= len(names) {
			return 0, c.badCast("invalid index '" + x + "' in enum '" + enumName + "'")
		}
		return int(i), nil
	default:
		i, err := c.asI64(v)
		if err != nil {
			return 0, err
		}
		return int(i), nil
	}
}

// enumName prints an enum value as fc does: its name, or the number when out of range.
func enumName(names []string, v int) string {
	if v >= 0 && v < len(names) {
		return names[v]
	}
	return strconv.Itoa(v)
}

// conv runs several conversions in turn, as consecutive "x, err :=
// c.asX(v); if err != nil" would: after the first failure the rest are
// skipped and err keeps it.
type conv struct{ err *rpcError }

// get is one conversion of a conv.
func get[T any](in *conv, f func(any) (T, *rpcError), v any) T {
	var x T
	if in.err == nil {
		x, in.err = f(v)
	}
	return x
}
