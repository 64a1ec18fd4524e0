package transcode

import (
	"encoding/hex"
	"math"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// scalar decodes a non-null value of a non-message field and writes it.
func (d *decoder) scalar(f *fieldPlan) error {
	num := f.desc.Number()
	switch f.kind {
	case kindBool:
		switch d.peek() {
		case 't':
			d.appendNumeric(num, protoreflect.BoolKind, 1)
			return d.literal("true")
		case 'f':
			d.appendNumeric(num, protoreflect.BoolKind, 0)
			return d.literal("false")
		}
		return d.unexpected("true or false")
	case kindString:
		s, _, err := d.readString()
		if err != nil {
			return err
		}
		d.appendBytesField(num, s)
		return nil
	case kindBytes:
		start := d.pos
		s, _, err := d.readString()
		if err != nil {
			return err
		}
		d.out = protowire.AppendTag(d.out, num, protowire.BytesType)
		d.out = protowire.AppendVarint(d.out, uint64(hex.DecodedLen(len(s))))
		if d.out, err = hex.AppendDecode(d.out, s); err != nil {
			d.pos = start
			return d.errorf("bad hex string: %v", err)
		}
		return nil
	case kindEnum:
		n, err := d.enumValue(f.enum)
		if err != nil {
			return err
		}
		d.appendNumeric(num, protoreflect.EnumKind, uint64(int64(n)))
		return nil
	default:
		bits, err := d.number(f.kind)
		if err != nil {
			return err
		}
		d.appendNumeric(num, f.desc.Kind(), bits)
		return nil
	}
}

// number decodes an integer or floating-point value from a JSON number or a
// numeric string and returns its 64-bit pattern.
func (d *decoder) number(k scalarKind) (uint64, error) {
	var lit []byte
	var err error
	start := d.pos
	if d.peek() == '"' {
		lit, _, err = d.readString()
	} else {
		lit, err = d.readNumber()
	}
	if err != nil {
		return 0, err
	}
	var bits uint64
	if k == kindFloat || k == kindDouble {
		bits, err = parseFloat(lit, k)
	} else {
		bits, err = parseInt(lit, k)
	}
	if err != nil {
		d.pos = start
		return 0, d.errorf("%v", err)
	}
	return bits, nil
}

// parseInt parses a decimal integer (optional '-', digits) of kind k with a
// range check, and returns it as a 64-bit two's complement pattern.
func parseInt(lit []byte, k scalarKind) (uint64, error) {
	neg := len(lit) > 0 && lit[0] == '-'
	digits := lit
	if neg {
		digits = lit[1:]
	}
	if len(digits) == 0 {
		return 0, errf("invalid integer %q", lit)
	}
	var u uint64
	for _, c := range digits {
		if !isDigit(c) {
			return 0, errf("invalid integer %q", lit)
		}
		digit := uint64(c - '0')
		if u > (math.MaxUint64-digit)/10 {
			return 0, errf("integer %s out of range for %s", lit, kindName(k))
		}
		u = u*10 + digit
	}
	switch k {
	case kindInt32, kindInt64:
		limit := uint64(math.MaxInt64)
		if k == kindInt32 {
			limit = math.MaxInt32
		}
		if neg {
			limit++
		}
		if u > limit {
			return 0, errf("integer %s out of range for %s", lit, kindName(k))
		}
		if neg {
			return -u, nil
		}
		return u, nil
	default:
		if neg && u != 0 {
			return 0, errf("negative integer %s for %s", lit, kindName(k))
		}
		if k == kindUint32 && u > math.MaxUint32 {
			return 0, errf("integer %s out of range for %s", lit, kindName(k))
		}
		return u, nil
	}
}

// parseFloat parses a float or double and returns its IEEE bits.
func parseFloat(lit []byte, k scalarKind) (uint64, error) {
	bits := 64
	if k == kindFloat {
		bits = 32
	}
	f, err := strconv.ParseFloat(string(lit), bits)
	if err != nil {
		return 0, errf("invalid %s %q", kindName(k), lit)
	}
	if k == kindFloat {
		return uint64(math.Float32bits(float32(f))), nil
	}
	return math.Float64bits(f), nil
}

// enumValue decodes an enum from a hived name, or from an integer or numeric
// string taken as the proto enum number.
func (d *decoder) enumValue(e *enumPlan) (protoreflect.EnumNumber, error) {
	start := d.pos
	if d.peek() != '"' {
		lit, err := d.readNumber()
		if err != nil {
			return 0, err
		}
		bits, err := parseInt(lit, kindInt32)
		if err != nil {
			d.pos = start
			return 0, d.errorf("%v", err)
		}
		return protoreflect.EnumNumber(int32(bits)), nil
	}
	s, _, err := d.readString()
	if err != nil {
		return 0, err
	}
	if n, ok := e.byName[string(s)]; ok {
		return n, nil
	}
	if bits, err := parseInt(s, kindInt32); err == nil {
		return protoreflect.EnumNumber(int32(bits)), nil
	}
	d.pos = start
	return 0, d.errorf("unknown enum name %q", s)
}

// neverTime reports whether the value at the decoder is one of hived's
// never-times for singular google.protobuf.Timestamp field f, and if so
// consumes it. An object member holding one is left unset (proto/README.md,
// "Times"); tuple elements (positions such as cursors), list elements and
// map values keep the real value.
func (d *decoder) neverTime(f *fieldPlan) bool {
	if f.list || f.mapVal != nil || f.kind != kindMessage || f.msg.shape != shapeTimestamp || d.peek() != '"' {
		return false
	}
	start := d.pos
	s, _, err := d.readString()
	if err == nil {
		if sec, err := parseHivedTime(s); err == nil && isNeverTime(sec) {
			return true
		}
	}
	d.pos = start
	return false
}

// isNeverTime reports whether Unix seconds sec is one of hived's never-times:
// 1969-12-31T23:59:59 (-1, time_point_sec::maximum() printed as a signed
// 32-bit value: "not scheduled") or 1970-01-01T00:00:00 (0, a default
// time_point_sec: "never happened").
func isNeverTime(sec int64) bool { return sec == -1 || sec == 0 }

// timestamp decodes a hived time string into google.protobuf.Timestamp fields.
func (d *decoder) timestamp() error {
	start := d.pos
	s, _, err := d.readString()
	if err != nil {
		return err
	}
	sec, err := parseHivedTime(s)
	if err != nil {
		d.pos = start
		return d.errorf("%v", err)
	}
	d.appendNumeric(tsSeconds, protoreflect.Int64Kind, uint64(sec))
	return nil
}

// appendNullValue writes field num as a google.protobuf.Value holding null.
func (d *decoder) appendNullValue(num protoreflect.FieldNumber) {
	start := d.beginLen(num)
	d.appendNumeric(valueNull, protoreflect.EnumKind, 0)
	d.endLen(start)
}

// value decodes any JSON value into google.protobuf.Value fields. Numbers
// keep their parsed float64 value, except integers that a float64 cannot hold
// exactly (beyond 2^53), which are stored as their decimal string so no digit
// is lost (hived >= 1.27.5 writes such integers as strings anyway).
func (d *decoder) value(p *messagePlan) error {
	switch c := d.peek(); c {
	case 'n':
		d.appendNumeric(valueNull, protoreflect.EnumKind, 0)
		return d.literal("null")
	case 't':
		d.appendNumeric(valueBool, protoreflect.BoolKind, 1)
		return d.literal("true")
	case 'f':
		d.appendNumeric(valueBool, protoreflect.BoolKind, 0)
		return d.literal("false")
	case '"':
		s, _, err := d.readString()
		if err != nil {
			return err
		}
		d.appendBytesField(valueString, s)
		return nil
	case '{', '[':
		num := valueStruct
		if c == '[' {
			num = valueList
		}
		f := p.fieldByNumber(num)
		start := d.beginLen(num)
		if err := d.message(f.msg); err != nil {
			return err
		}
		d.endLen(start)
		return nil
	}
	lit, err := d.readNumber()
	if err != nil {
		return err
	}
	f, exact := parseJSONNumber(lit)
	if !exact {
		d.appendBytesField(valueString, lit)
		return nil
	}
	d.appendDouble(valueNumber, f)
	return nil
}

// parseJSONNumber parses a valid JSON number literal. exact is false for an
// integer literal a float64 cannot represent exactly, and for numbers out of
// float64's range.
func parseJSONNumber(lit []byte) (f float64, exact bool) {
	isInt := true
	for _, c := range lit {
		if c == '.' || c == 'e' || c == 'E' {
			isInt = false
			break
		}
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return f, false
	}
	if !isInt || math.Abs(f) <= maxExactFloatInt {
		return f, true
	}
	if i, err := strconv.ParseInt(string(lit), 10, 64); err == nil {
		return f, f < 1<<63 && f >= -(1<<63) && int64(f) == i
	}
	if u, err := strconv.ParseUint(string(lit), 10, 64); err == nil {
		return f, f < 1<<64 && uint64(f) == u
	}
	return f, false
}

// structObject decodes a JSON object into google.protobuf.Struct fields.
func (d *decoder) structObject(p *messagePlan) error {
	return d.mapField(p.fieldByNumber(structFields))
}
