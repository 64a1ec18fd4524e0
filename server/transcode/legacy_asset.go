package transcode

import (
	"strconv"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hivegate/hivegate/jsonwire"
)

// Field numbers of a JSON_SHAPE_LEGACY_ASSET message (hive.types.v1.LegacyAsset).
const (
	legacyAmount    protoreflect.FieldNumber = 1 // int64: the amount in the token's smallest unit
	legacyPrecision protoreflect.FieldNumber = 2 // uint32: the number of decimal places
	legacySymbol    protoreflect.FieldNumber = 3 // string: the token's symbol ("HIVE")
)

// checkLegacyAsset validates a JSON_SHAPE_LEGACY_ASSET message: exactly the
// fields amount (int64, 1), precision (uint32, 2) and symbol (string, 3).
func (b *planBuilder) checkLegacyAsset(p *messagePlan) {
	want := map[protoreflect.FieldNumber]scalarKind{legacyAmount: kindInt64, legacyPrecision: kindUint32, legacySymbol: kindString}
	ok := len(p.fields) == len(want)
	for _, f := range p.fields {
		if k, found := want[f.desc.Number()]; !found || k != f.kind || f.list || f.mapVal != nil {
			ok = false
		}
	}
	if !ok {
		p.err = errf("schema: %s is JSON_SHAPE_LEGACY_ASSET but is not {int64 amount = 1; uint32 precision = 2; string symbol = 3}",
			p.desc.FullName())
	}
}

// legacyAsset decodes a legacy asset string such as "1.000 HIVE" or
// "-0.500 HBD": the digits without the point are the amount, the number of
// digits after the point is the precision, and the text after the single
// space is the symbol.
func (d *decoder) legacyAsset() error {
	start := d.pos
	s, _, err := d.readString()
	if err != nil {
		return err
	}
	amount, precision, symbol, ok := parseLegacyAsset(s)
	if !ok {
		d.pos = start
		return d.errorf("bad legacy asset %q: want \"<amount> <SYMBOL>\", e.g. \"1.000 HIVE\"", s)
	}
	d.appendNumeric(legacyAmount, protoreflect.Int64Kind, uint64(amount))
	d.appendNumeric(legacyPrecision, protoreflect.Uint32Kind, uint64(precision))
	d.appendBytesField(legacySymbol, symbol)
	return nil
}

// parseLegacyAsset splits "<int>[.<frac>] <SYMBOL>".
func parseLegacyAsset(s []byte) (amount int64, precision int, symbol []byte, ok bool) {
	i := 0
	neg := false
	if i < len(s) && s[i] == '-' {
		neg = true
		i++
	}
	digits, seenPoint := 0, false
	var u uint64
	for ; i < len(s) && s[i] != ' '; i++ {
		c := s[i]
		switch {
		case c == '.' && !seenPoint && digits > 0:
			seenPoint = true
		case isDigit(c):
			if u > (1<<63-1)/10 {
				return 0, 0, nil, false
			}
			u = u*10 + uint64(c-'0')
			if u > 1<<63-1 {
				return 0, 0, nil, false
			}
			digits++
			if seenPoint {
				precision++
			}
		default:
			return 0, 0, nil, false
		}
	}
	if digits == 0 || (seenPoint && precision == 0) || i >= len(s)-1 {
		return 0, 0, nil, false
	}
	symbol = s[i+1:]
	for _, c := range symbol {
		if c == ' ' {
			return 0, 0, nil, false
		}
	}
	amount = int64(u)
	if neg {
		amount = -amount
	}
	return amount, precision, symbol, true
}

// legacyAsset writes a JSON_SHAPE_LEGACY_ASSET message as its string.
func (e *encoder) legacyAsset(m protoreflect.Message) error {
	fds := m.Descriptor().Fields()
	amount := m.Get(fds.ByNumber(legacyAmount)).Int()
	precision := int(m.Get(fds.ByNumber(legacyPrecision)).Uint())
	symbol := m.Get(fds.ByNumber(legacySymbol)).String()
	if precision > 30 || symbol == "" {
		return e.errorf("legacy asset with precision %d and symbol %q cannot be written", precision, symbol)
	}
	var digits []byte
	if amount < 0 {
		digits = strconv.AppendUint(nil, uint64(-amount), 10)
	} else {
		digits = strconv.AppendInt(nil, amount, 10)
	}
	for len(digits) <= precision {
		digits = append([]byte{'0'}, digits...)
	}
	var b []byte
	if amount < 0 {
		b = append(b, '-')
	}
	b = append(b, digits[:len(digits)-precision]...)
	if precision > 0 {
		b = append(b, '.')
		b = append(b, digits[len(digits)-precision:]...)
	}
	b = append(b, ' ')
	b = append(b, symbol...)
	e.buf = jsonwire.AppendString(e.buf, string(b))
	return nil
}
