package transcode

import (
	"strconv"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// decimalAsset decodes a bare JSON number such as 12.345 into a
// JSON_SHAPE_LEGACY_ASSET message, as if it were the string "12.345 SYM":
// the digits without the point are the amount, the digits after it the
// precision. An exponent (1e-05, as Python writes small floats) moves the
// point. The message is written with the field's number.
func (d *decoder) decimalAsset(f *fieldPlan) error {
	start := d.pos
	lit, err := d.readNumber()
	if err != nil {
		return err
	}
	amount, precision, ok := parseDecimal(lit)
	if !ok {
		d.pos = start
		return d.errorf("bad %s amount %s: want a decimal number such as 12.345", f.decimal, lit)
	}
	at := d.beginLen(f.desc.Number())
	d.appendNumeric(legacyAmount, protoreflect.Int64Kind, uint64(amount))
	d.appendNumeric(legacyPrecision, protoreflect.Uint32Kind, uint64(precision))
	d.appendBytesField(legacySymbol, []byte(f.decimal))
	d.endLen(at)
	return nil
}

// parseDecimal splits a JSON number "-12.345e-2" into its digits as an
// integer and the number of decimal places (0.12345: 12345, 5). It reports
// false for a number whose digits do not fit an int64 or whose places are
// more than 30.
func parseDecimal(lit []byte) (amount int64, precision int, ok bool) {
	i, neg := 0, false
	if i < len(lit) && lit[i] == '-' {
		neg = true
		i++
	}
	var u uint64
	digits, point := 0, false
	for ; i < len(lit) && lit[i] != 'e' && lit[i] != 'E'; i++ {
		c := lit[i]
		switch {
		case c == '.' && !point:
			point = true
		case isDigit(c):
			if u > (1<<63-1)/10 {
				return 0, 0, false
			}
			u = u*10 + uint64(c-'0')
			if u > 1<<63-1 {
				return 0, 0, false
			}
			digits++
			if point {
				precision++
			}
		default:
			return 0, 0, false
		}
	}
	if digits == 0 {
		return 0, 0, false
	}
	if i < len(lit) { // exponent
		exp, err := strconv.Atoi(string(lit[i+1:]))
		if err != nil || exp > 30 || exp < -30 {
			return 0, 0, false
		}
		precision -= exp
		for ; precision < 0; precision++ {
			if u > (1<<63-1)/10 {
				return 0, 0, false
			}
			u *= 10
		}
	}
	if precision > 30 {
		return 0, 0, false
	}
	amount = int64(u)
	if neg {
		amount = -amount
	}
	return amount, precision, true
}

// decimalAsset writes a JSON_SHAPE_LEGACY_ASSET message of a json_decimal
// field as a bare number with precision decimal places ("12.345"). The
// message's symbol must be the field's (or empty).
func (e *encoder) decimalAsset(m protoreflect.Message, f *fieldPlan) error {
	fds := m.Descriptor().Fields()
	amount := m.Get(fds.ByNumber(legacyAmount)).Int()
	precision := int(m.Get(fds.ByNumber(legacyPrecision)).Uint())
	symbol := m.Get(fds.ByNumber(legacySymbol)).String()
	if precision > 30 || (symbol != "" && symbol != f.decimal) {
		return e.errorf("an amount with precision %d and symbol %q cannot be written as a bare %s number", precision, symbol, f.decimal)
	}
	var digits []byte
	if amount < 0 {
		e.buf = append(e.buf, '-')
		digits = strconv.AppendUint(nil, uint64(-amount), 10)
	} else {
		digits = strconv.AppendInt(nil, amount, 10)
	}
	for len(digits) <= precision {
		digits = append([]byte{'0'}, digits...)
	}
	e.buf = append(e.buf, digits[:len(digits)-precision]...)
	if precision > 0 {
		e.buf = append(e.buf, '.')
		e.buf = append(e.buf, digits[len(digits)-precision:]...)
	}
	return nil
}
