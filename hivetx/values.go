package hivetx

import (
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// kind is the type of one operation field, as far as packing and JSON go.
type kind uint8

const (
	kString        kind = iota // std::string, account_name_type
	kBool                      // bool
	kU16                       // uint16_t
	kI16                       // int16_t
	kU32                       // uint32_t
	kU64                       // uint64_t
	kI64                       // int64_t
	kAsset                     // asset (legacy text or NAI object)
	kPublicKey                 // public_key_type
	kAuthority                 // authority
	kNameSet                   // flat_set<account_name_type>: sorted, unique
	kTime                      // time_point_sec
	kStruct                    // a nested struct (sub)
	kHexFixed                  // fixed-size bytes written as hex (size)
	kHexVar                    // vector<char> written as hex
	kExtensions                // future_extensions: must be empty
	kBeneficiaries             // comment_options' extensions
)

// field is one member of an operation or nested struct, in fc's order.
type field struct {
	name    string
	aliases []string // older JSON names hived still reads
	kind    kind
	size    int     // kHexFixed
	sub     []field // kStruct
	opt     bool    // fc::optional: one presence byte, may be absent or null
	// def, when not nil, is the value of an absent field; a field without
	// def or opt is required.
	def func() any
}

// timeLayout is hived's time format (UTC, no zone).
const timeLayout = "2006-01-02T15:04:05"

func emptyNames() any { return []string{} }
func emptyList() any  { return []any{} }

// decode turns a JSON value (decoded with UseNumber) into the field's Go
// value.
func (f *field) decode(v any) (any, error) {
	if f.opt && v == nil {
		return nil, nil
	}
	switch f.kind {
	case kString:
		s, ok := v.(string)
		if !ok {
			return nil, errors.New("want a string")
		}
		return s, nil
	case kBool:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			if x == "true" || x == "false" {
				return x == "true", nil
			}
		}
		return nil, errors.New("want true or false")
	case kU16:
		n, err := toUint(v, 16)
		return uint16(n), err
	case kI16:
		n, err := toInt(v, 16)
		return int16(n), err
	case kU32:
		n, err := toUint(v, 32)
		return uint32(n), err
	case kU64:
		return toUint(v, 64)
	case kI64:
		return toInt(v, 64)
	case kAsset:
		switch x := v.(type) {
		case string:
			return ParseAsset(x)
		case map[string]any:
			return assetFromNAI(x)
		}
		return nil, errors.New("want an asset")
	case kPublicKey:
		s, ok := v.(string)
		if !ok {
			return nil, errors.New("want a public key")
		}
		return ParsePublicKey(s)
	case kAuthority:
		return decodeAuthority(v)
	case kNameSet:
		arr, ok := v.([]any)
		if !ok {
			return nil, errors.New("want an array of account names")
		}
		names := make([]string, 0, len(arr))
		for _, e := range arr {
			s, ok := e.(string)
			if !ok {
				return nil, errors.New("want an array of account names")
			}
			names = append(names, s)
		}
		slices.Sort(names)
		return slices.Compact(names), nil
	case kTime:
		s, ok := v.(string)
		if !ok {
			return nil, errors.New("want a time")
		}
		t, err := time.Parse(timeLayout, s)
		if err != nil {
			return nil, errors.New("want a time like 2016-03-24T18:00:21")
		}
		return t, nil
	case kStruct:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, errors.New("want an object")
		}
		return decodeFields(f.sub, m)
	case kHexFixed, kHexVar:
		s, ok := v.(string)
		if !ok {
			return nil, errors.New("want hex")
		}
		b, err := hex.DecodeString(s)
		if err != nil || (f.kind == kHexFixed && len(b) != f.size) {
			if f.kind == kHexFixed {
				return nil, fmt.Errorf("want %d hex digits", 2*f.size)
			}
			return nil, errors.New("want hex")
		}
		return b, nil
	case kExtensions:
		arr, ok := v.([]any)
		if !ok || len(arr) != 0 {
			return nil, errors.New("extensions are not supported: want []")
		}
		return []any{}, nil
	case kBeneficiaries:
		return decodeBeneficiaries(v)
	}
	return nil, fmt.Errorf("unknown field kind %d", f.kind)
}

// decodeFields decodes a JSON object into the values of fields, in order.
// A member no field names is an error, except HiveSigner's client-side
// members ("__config", "__rshares"), which are dropped as HiveSigner does.
func decodeFields(fields []field, m map[string]any) ([]any, error) {
	out := make([]any, len(fields))
	seen := 0
	for i := range fields {
		f := &fields[i]
		v, ok := m[f.name]
		name := f.name
		for _, a := range f.aliases {
			if ok {
				break
			}
			v, ok = m[a]
			name = a
		}
		if ok {
			seen++
		}
		switch {
		case !ok && f.opt:
			continue
		case !ok && f.def != nil:
			out[i] = f.def()
			continue
		case !ok:
			return nil, fmt.Errorf("%s: missing", f.name)
		}
		val, err := f.decode(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[i] = val
	}
	if seen < len(m) {
		for k := range m {
			if !strings.HasPrefix(k, "__") && !knownField(fields, k) {
				return nil, fmt.Errorf("%s: unknown field", k)
			}
		}
	}
	return out, nil
}

func knownField(fields []field, k string) bool {
	for _, f := range fields {
		if f.name == k || slices.Contains(f.aliases, k) {
			return true
		}
	}
	return false
}

// Authority is a weighted threshold of accounts and keys, as in an
// account's owner, active and posting authorities.
type Authority struct {
	WeightThreshold uint32
	AccountAuths    []AccountWeight // sorted by name, as hived stores them
	KeyAuths        []KeyWeight     // sorted by key bytes
}

// AccountWeight is one account of an authority and its weight.
type AccountWeight struct {
	Account string
	Weight  uint16
}

// KeyWeight is one key of an authority and its weight.
type KeyWeight struct {
	Key    PublicKey
	Weight uint16
}

// decodeAuthority reads {"weight_threshold", "account_auths": [[name,
// weight]], "key_auths": [[key, weight]]} and sorts the auths as hived's
// flat_maps do, so that the packed bytes are the ones hived signs.
func decodeAuthority(v any) (Authority, error) {
	var a Authority
	m, ok := v.(map[string]any)
	if !ok {
		return a, errors.New("want an authority object")
	}
	for k := range m {
		if k != "weight_threshold" && k != "account_auths" && k != "key_auths" {
			return a, fmt.Errorf("%s: unknown field", k)
		}
	}
	wt, err := toUint(m["weight_threshold"], 32)
	if err != nil {
		return a, fmt.Errorf("weight_threshold: %w", err)
	}
	a.WeightThreshold = uint32(wt)
	pairs := func(k string, each func(name string, w uint16) error) error {
		arr, ok := m[k].([]any)
		if !ok {
			return fmt.Errorf("%s: want [[name, weight], ...]", k)
		}
		for _, e := range arr {
			p, ok := e.([]any)
			if !ok || len(p) != 2 {
				return fmt.Errorf("%s: want [[name, weight], ...]", k)
			}
			name, ok := p[0].(string)
			w, err := toUint(p[1], 16)
			if !ok || err != nil {
				return fmt.Errorf("%s: want [[name, weight], ...]", k)
			}
			if err := each(name, uint16(w)); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
		return nil
	}
	if err := pairs("account_auths", func(n string, w uint16) error {
		a.AccountAuths = append(a.AccountAuths, AccountWeight{n, w})
		return nil
	}); err != nil {
		return a, err
	}
	if err := pairs("key_auths", func(n string, w uint16) error {
		k, err := ParsePublicKey(n)
		a.KeyAuths = append(a.KeyAuths, KeyWeight{k, w})
		return err
	}); err != nil {
		return a, err
	}
	a.sort()
	return a, nil
}

func (a *Authority) sort() {
	slices.SortStableFunc(a.AccountAuths, func(x, y AccountWeight) int { return strings.Compare(x.Account, y.Account) })
	a.AccountAuths = slices.CompactFunc(a.AccountAuths, func(x, y AccountWeight) bool { return x.Account == y.Account })
	slices.SortStableFunc(a.KeyAuths, func(x, y KeyWeight) int { return cmp.Compare(string(x.Key[:]), string(y.Key[:])) })
	a.KeyAuths = slices.CompactFunc(a.KeyAuths, func(x, y KeyWeight) bool { return x.Key == y.Key })
}

// Beneficiary is one route of comment_options' beneficiaries extension.
type Beneficiary struct {
	Account string
	Weight  uint16
}

// decodeBeneficiaries reads comment_options' extensions: condenser's
// [[0, {"beneficiaries": [...]}]] or database_api's [{"type":
// "comment_payout_beneficiaries", "value": {...}}]. hived requires the
// routes sorted by account and does not sort them itself: neither does
// this (the node's refusal is the caller's answer).
func decodeBeneficiaries(v any) ([][]Beneficiary, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, errors.New("want an array of extensions")
	}
	out := [][]Beneficiary{}
	for _, e := range arr {
		var body any
		switch x := e.(type) {
		case []any:
			if len(x) != 2 {
				return nil, errors.New("want [0, {beneficiaries}]")
			}
			id, err := toUint(x[0], 32)
			name, _ := x[0].(string)
			if (err != nil || id != 0) && name != "comment_payout_beneficiaries" {
				return nil, errors.New("only comment_payout_beneficiaries is supported")
			}
			body = x[1]
		case map[string]any:
			if x["type"] != "comment_payout_beneficiaries" {
				return nil, errors.New("only comment_payout_beneficiaries is supported")
			}
			body = x["value"]
		default:
			return nil, errors.New("want an extension")
		}
		m, ok := body.(map[string]any)
		routes, ok2 := m["beneficiaries"].([]any)
		if !ok || !ok2 || len(m) != 1 {
			return nil, errors.New("want {beneficiaries: [...]}")
		}
		var bs []Beneficiary
		for _, r := range routes {
			vals, err := decodeFields(beneficiaryFields, asMap(r))
			if err != nil {
				return nil, fmt.Errorf("beneficiaries: %w", err)
			}
			bs = append(bs, Beneficiary{Account: vals[0].(string), Weight: vals[1].(uint16)})
		}
		out = append(out, bs)
	}
	return out, nil
}

var beneficiaryFields = []field{{name: "account", kind: kString}, {name: "weight", kind: kU16}}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	if m == nil {
		return map[string]any{}
	}
	return m
}

// toInt reads a JSON integer (number or numeric string, as fc accepts) of
// the given bit size.
func toInt(v any, bits int) (int64, error) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = x.String()
	case string:
		s = x
	default:
		return 0, errors.New("want an integer")
	}
	n, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return 0, fmt.Errorf("want an integer of %d bits", bits)
	}
	return n, nil
}

// toUint is toInt for unsigned integers.
func toUint(v any, bits int) (uint64, error) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = x.String()
	case string:
		s = x
	default:
		return 0, errors.New("want an unsigned integer")
	}
	n, err := strconv.ParseUint(s, 10, bits)
	if err != nil {
		return 0, fmt.Errorf("want an unsigned integer of %d bits", bits)
	}
	return n, nil
}

// appendVarint32 packs fc::unsigned_int: LEB128.
func appendVarint32(b []byte, n uint32) []byte { return binary.AppendUvarint(b, uint64(n)) }

func appendString(b []byte, s string) []byte {
	b = appendVarint32(b, uint32(len(s)))
	return append(b, s...)
}

// appendBinary packs a field value as fc::raw does.
func (f *field) appendBinary(b []byte, v any) []byte {
	if f.opt {
		if v == nil {
			return append(b, 0)
		}
		b = append(b, 1)
	}
	switch f.kind {
	case kString:
		return appendString(b, v.(string))
	case kBool:
		if v.(bool) {
			return append(b, 1)
		}
		return append(b, 0)
	case kU16:
		return binary.LittleEndian.AppendUint16(b, v.(uint16))
	case kI16:
		return binary.LittleEndian.AppendUint16(b, uint16(v.(int16)))
	case kU32:
		return binary.LittleEndian.AppendUint32(b, v.(uint32))
	case kU64:
		return binary.LittleEndian.AppendUint64(b, v.(uint64))
	case kI64:
		return binary.LittleEndian.AppendUint64(b, uint64(v.(int64)))
	case kAsset:
		return v.(Asset).appendBinary(b)
	case kPublicKey:
		k := v.(PublicKey)
		return append(b, k[:]...)
	case kAuthority:
		a := v.(Authority)
		b = binary.LittleEndian.AppendUint32(b, a.WeightThreshold)
		b = appendVarint32(b, uint32(len(a.AccountAuths)))
		for _, aw := range a.AccountAuths {
			b = appendString(b, aw.Account)
			b = binary.LittleEndian.AppendUint16(b, aw.Weight)
		}
		b = appendVarint32(b, uint32(len(a.KeyAuths)))
		for _, kw := range a.KeyAuths {
			b = append(b, kw.Key[:]...)
			b = binary.LittleEndian.AppendUint16(b, kw.Weight)
		}
		return b
	case kNameSet:
		names := v.([]string)
		b = appendVarint32(b, uint32(len(names)))
		for _, n := range names {
			b = appendString(b, n)
		}
		return b
	case kTime:
		return binary.LittleEndian.AppendUint32(b, timeSeconds(v.(time.Time)))
	case kStruct:
		vals := v.([]any)
		for i := range f.sub {
			b = f.sub[i].appendBinary(b, vals[i])
		}
		return b
	case kHexFixed:
		return append(b, v.([]byte)...)
	case kHexVar:
		raw := v.([]byte)
		b = appendVarint32(b, uint32(len(raw)))
		return append(b, raw...)
	case kExtensions:
		return appendVarint32(b, 0)
	case kBeneficiaries:
		exts := v.([][]Beneficiary)
		b = appendVarint32(b, uint32(len(exts)))
		for _, bs := range exts {
			b = appendVarint32(b, 0) // static_variant tag: comment_payout_beneficiaries
			b = appendVarint32(b, uint32(len(bs)))
			for _, r := range bs {
				b = appendString(b, r.Account)
				b = binary.LittleEndian.AppendUint16(b, r.Weight)
			}
		}
		return b
	}
	panic(fmt.Sprintf("hivetx: unknown field kind %d", f.kind))
}

// timeSeconds is a time as time_point_sec (seconds since 1970, 32 bits).
func timeSeconds(t time.Time) uint32 {
	s := t.Unix()
	if s < 0 || s > math.MaxUint32 {
		return 0
	}
	return uint32(s)
}

// appendJSON writes a field value in condenser_api's JSON: legacy asset
// strings, [name, weight] pairs, integers above 32 bits as strings (as fc
// writes them).
func (f *field) appendJSON(b []byte, v any) []byte {
	if f.opt && v == nil {
		return append(b, "null"...)
	}
	switch f.kind {
	case kString:
		return appendJSONString(b, v.(string))
	case kBool:
		return strconv.AppendBool(b, v.(bool))
	case kU16:
		return strconv.AppendUint(b, uint64(v.(uint16)), 10)
	case kI16:
		return strconv.AppendInt(b, int64(v.(int16)), 10)
	case kU32:
		return strconv.AppendUint(b, uint64(v.(uint32)), 10)
	case kU64:
		n := v.(uint64)
		if n > math.MaxUint32 {
			return append(strconv.AppendUint(append(b, '"'), n, 10), '"')
		}
		return strconv.AppendUint(b, n, 10)
	case kI64:
		n := v.(int64)
		if n > math.MaxUint32 || n < -math.MaxUint32 {
			return append(strconv.AppendInt(append(b, '"'), n, 10), '"')
		}
		return strconv.AppendInt(b, n, 10)
	case kAsset:
		return appendJSONString(b, v.(Asset).String())
	case kPublicKey:
		return appendJSONString(b, v.(PublicKey).String())
	case kAuthority:
		a := v.(Authority)
		b = append(b, `{"weight_threshold":`...)
		b = strconv.AppendUint(b, uint64(a.WeightThreshold), 10)
		b = append(b, `,"account_auths":[`...)
		for i, aw := range a.AccountAuths {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(append(b, '['), aw.Account)
			b = append(strconv.AppendUint(append(b, ','), uint64(aw.Weight), 10), ']')
		}
		b = append(b, `],"key_auths":[`...)
		for i, kw := range a.KeyAuths {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(append(b, '['), kw.Key.String())
			b = append(strconv.AppendUint(append(b, ','), uint64(kw.Weight), 10), ']')
		}
		return append(b, "]}"...)
	case kNameSet:
		b = append(b, '[')
		for i, n := range v.([]string) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, n)
		}
		return append(b, ']')
	case kTime:
		return appendJSONString(b, v.(time.Time).UTC().Format(timeLayout))
	case kStruct:
		return appendJSONFields(b, f.sub, v.([]any))
	case kHexFixed, kHexVar:
		return appendJSONString(b, hex.EncodeToString(v.([]byte)))
	case kExtensions:
		return append(b, "[]"...)
	case kBeneficiaries:
		b = append(b, '[')
		for i, bs := range v.([][]Beneficiary) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `[0,{"beneficiaries":[`...)
			for j, r := range bs {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendJSONString(append(b, `{"account":`...), r.Account)
				b = append(strconv.AppendUint(append(b, `,"weight":`...), uint64(r.Weight), 10), '}')
			}
			b = append(b, "]}]"...)
		}
		return append(b, ']')
	}
	panic(fmt.Sprintf("hivetx: unknown field kind %d", f.kind))
}

func appendJSONFields(b []byte, fields []field, vals []any) []byte {
	b = append(b, '{')
	first := true
	for i := range fields {
		if fields[i].opt && vals[i] == nil {
			continue // fc leaves an empty optional out
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendJSONString(b, fields[i].name)
		b = append(b, ':')
		b = fields[i].appendJSON(b, vals[i])
	}
	return append(b, '}')
}

func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a Go string always marshals
	return append(b, q...)
}
