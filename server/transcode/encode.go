package transcode

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hivegate/hivegate/jsonwire"
)

// maxPooledBuffer is the largest buffer (JSON output or wire encoding) kept
// for reuse.
const maxPooledBuffer = 4 << 20

// Marshal encodes m as hived JSON using a shared Codec. See Codec.Marshal.
func Marshal(m proto.Message) ([]byte, error) {
	return defaultCodec.Marshal(m)
}

// MarshalParams encodes a typed request as JSON-RPC params using a shared
// Codec. See Codec.MarshalParams.
func MarshalParams(req proto.Message) (json.RawMessage, error) {
	return defaultCodec.MarshalParams(req)
}

// Marshal encodes m as hived JSON, the inverse of Unmarshal.
//
// Object keys are written in field-number order (the schema numbers fields
// in hived's FC_REFLECT order). Implicit-presence scalars and repeated
// fields are always written, as hived writes every member; unset proto3
// optional fields, unset message fields and unset oneofs are omitted; an
// enum field holding its *_UNSPECIFIED zero (which has no hived name) is
// omitted too. TUPLE messages drop trailing omitted fields and write null for
// omitted fields before the last written one. BARE messages write the value
// of their (set) field. Timestamps are "YYYY-MM-DDTHH:MM:SS" (sub-second
// nanos are truncated); 64-bit integers are numbers when |v| <= 2^53-1 and
// strings otherwise; bytes are lowercase hex. A top-level message with
// nothing to write (an empty BARE message) is null.
func (c *Codec) Marshal(m proto.Message) ([]byte, error) {
	bp := c.getBuf()
	e := encoder{buf: (*bp)[:0]}
	err := e.message(m.ProtoReflect(), c.plan(m.ProtoReflect().Descriptor()))
	var out []byte
	if err == nil {
		out = slices.Clone(e.buf)
	}
	*bp = e.buf
	c.putBuf(bp)
	return out, err
}

// MarshalParams encodes a typed request as the params of the equivalent
// JSON-RPC call. It is exactly Marshal: the request message is the params
// (database_api requests are objects, condenser_api requests are TUPLE
// arrays). Unset optional and message fields are omitted and
// implicit-presence scalars are written even when zero, so callers must fill
// hived's defaults (for example limit) before encoding: a typed call and the
// equivalent hand-written call then produce the same params bytes, and so
// share one cache key.
func (c *Codec) MarshalParams(req proto.Message) (json.RawMessage, error) {
	return c.Marshal(req)
}

// encoder appends hived JSON to buf.
type encoder struct {
	buf  []byte
	path []pathSeg
}

// errorf returns an *Error at the current path.
func (e *encoder) errorf(format string, args ...any) error {
	return &Error{Path: renderPath(e.path), Offset: -1, Msg: fmt.Sprintf(format, args...)}
}

// message writes a message according to its plan.
func (e *encoder) message(m protoreflect.Message, p *messagePlan) error {
	if p.err != nil {
		return e.errorf("%v", p.err)
	}
	switch p.shape {
	case shapeTupleArr:
		return e.tuple(m, p)
	case shapeBareValue:
		f, v := bareField(m, p)
		if f == nil {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		return e.field(f, v)
	case shapeTimestamp:
		return e.timestamp(m, 'T')
	case shapeLegacyAsset:
		return e.legacyAsset(m)
	case shapeValue:
		return e.value(m, p)
	case shapeStruct:
		return e.structObject(m, p)
	case shapeListValue:
		f := p.fieldByNumber(listValueValues)
		return e.list(m.Get(f.desc).List(), f)
	default:
		return e.object(m, p)
	}
}

// object writes {"key": value, ...} in field-number order.
func (e *encoder) object(m protoreflect.Message, p *messagePlan) error {
	e.buf = append(e.buf, '{')
	first := true
	for _, f := range p.fields {
		v, ok := present(m, f)
		if !ok {
			continue
		}
		if !first {
			e.buf = append(e.buf, ',')
		}
		first = false
		e.buf = append(e.buf, f.keyJSON...)
		e.path = append(e.path, pathSeg{key: f.keyBytes})
		err := e.field(f, v)
		e.path = e.path[:len(e.path)-1]
		if err != nil {
			return err
		}
	}
	e.buf = append(e.buf, '}')
	return nil
}

// tuple writes [field1, field2, ...], dropping trailing omitted fields.
func (e *encoder) tuple(m protoreflect.Message, p *messagePlan) error {
	n := len(p.fields)
	for n > 0 {
		if _, ok := present(m, p.fields[n-1]); ok {
			break
		}
		n--
	}
	e.buf = append(e.buf, '[')
	for i, f := range p.fields[:n] {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		v, ok := present(m, f)
		if !ok {
			e.buf = append(e.buf, "null"...)
			continue
		}
		e.path = append(e.path, pathSeg{index: i, isIndex: true})
		err := e.field(f, v)
		e.path = e.path[:len(e.path)-1]
		if err != nil {
			return err
		}
	}
	e.buf = append(e.buf, ']')
	return nil
}

// bareField returns the field a BARE message writes and its value; f is nil
// when the message has nothing to write.
func bareField(m protoreflect.Message, p *messagePlan) (f *fieldPlan, v protoreflect.Value) {
	if p.oneof == nil {
		f = p.fields[0]
	} else {
		fd := m.WhichOneof(p.oneof)
		if fd == nil {
			return nil, v
		}
		if f = p.fieldByNumber(fd.Number()); f == nil {
			return nil, v
		}
	}
	v, ok := present(m, f)
	if !ok {
		return nil, v
	}
	return f, v
}

// present returns the value of field f of m, and false when the field is
// left out of objects (and tuples): an unset field with presence, an enum at
// its *_UNSPECIFIED zero, or a BARE message with nothing to write.
// Repeated, map and implicit scalar fields are always present.
func present(m protoreflect.Message, f *fieldPlan) (protoreflect.Value, bool) {
	if f.presence && !m.Has(f.desc) {
		return protoreflect.Value{}, false
	}
	v := m.Get(f.desc)
	if f.list || f.mapVal != nil {
		return v, true
	}
	switch f.kind {
	case kindEnum:
		if n := v.Enum(); n == 0 && !f.enum.nullValue {
			if _, named := f.enum.names[0]; !named {
				return v, false
			}
		}
	case kindMessage:
		if f.msg.shape == shapeBareValue && f.msg.err == nil {
			if bf, _ := bareField(v.Message(), f.msg); bf == nil {
				return v, false
			}
		}
	}
	return v, true
}

// field writes value v of field f.
func (e *encoder) field(f *fieldPlan, v protoreflect.Value) error {
	switch {
	case f.list:
		return e.list(v.List(), f)
	case f.mapVal != nil:
		return e.mapObject(v.Map(), f)
	case f.kind == kindMessage:
		if f.timeSep != 0 && f.msg.shape == shapeTimestamp {
			return e.timestamp(v.Message(), f.timeSep)
		}
		if f.decimal != "" {
			return e.decimalAsset(v.Message(), f)
		}
		return e.message(v.Message(), f.msg)
	default:
		return e.scalar(f, v)
	}
}

// list writes a repeated field as an array.
func (e *encoder) list(l protoreflect.List, f *fieldPlan) error {
	e.buf = append(e.buf, '[')
	for i := range l.Len() {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.path = append(e.path, pathSeg{index: i, isIndex: true})
		var err error
		switch {
		case f.kind == kindMessage && f.timeSep != 0 && f.msg.shape == shapeTimestamp:
			err = e.timestamp(l.Get(i).Message(), f.timeSep)
		case f.kind == kindMessage && f.decimal != "":
			err = e.decimalAsset(l.Get(i).Message(), f)
		case f.kind == kindMessage:
			err = e.message(l.Get(i).Message(), f.msg)
		default:
			err = e.scalar(f, l.Get(i))
		}
		e.path = e.path[:len(e.path)-1]
		if err != nil {
			return err
		}
	}
	e.buf = append(e.buf, ']')
	return nil
}

// mapObject writes a map field as an object with sorted keys.
func (e *encoder) mapObject(mp protoreflect.Map, f *fieldPlan) error {
	type entry struct {
		key string
		val protoreflect.Value
	}
	entries := make([]entry, 0, mp.Len())
	mp.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
		entries = append(entries, entry{k.String(), v})
		return true
	})
	slices.SortFunc(entries, func(a, b entry) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	e.buf = append(e.buf, '{')
	for i, en := range entries {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = jsonwire.AppendString(e.buf, en.key)
		e.buf = append(e.buf, ':')
		e.path = append(e.path, pathSeg{key: []byte(en.key)})
		var err error
		if f.mapVal.kind == kindMessage {
			err = e.message(en.val.Message(), f.mapVal.msg)
		} else {
			err = e.scalar(f.mapVal, en.val)
		}
		e.path = e.path[:len(e.path)-1]
		if err != nil {
			return err
		}
	}
	e.buf = append(e.buf, '}')
	return nil
}

// scalar writes a non-message value.
func (e *encoder) scalar(f *fieldPlan, v protoreflect.Value) error {
	switch f.kind {
	case kindBool:
		e.buf = strconv.AppendBool(e.buf, v.Bool())
	case kindInt32:
		e.buf = strconv.AppendInt(e.buf, v.Int(), 10)
	case kindUint32:
		e.buf = strconv.AppendUint(e.buf, v.Uint(), 10)
	case kindInt64:
		i := v.Int()
		if f.quoted || i > maxExactFloatInt || i < -maxExactFloatInt {
			e.buf = append(e.buf, '"')
			e.buf = strconv.AppendInt(e.buf, i, 10)
			e.buf = append(e.buf, '"')
		} else {
			e.buf = strconv.AppendInt(e.buf, i, 10)
		}
	case kindUint64:
		u := v.Uint()
		if f.quoted || u > maxExactFloatInt {
			e.buf = append(e.buf, '"')
			e.buf = strconv.AppendUint(e.buf, u, 10)
			e.buf = append(e.buf, '"')
		} else {
			e.buf = strconv.AppendUint(e.buf, u, 10)
		}
	case kindFloat, kindDouble:
		bits := 64
		if f.kind == kindFloat {
			bits = 32
		}
		return e.float(v.Float(), bits)
	case kindString:
		e.buf = jsonwire.AppendString(e.buf, v.String())
	case kindBytes:
		e.buf = append(e.buf, '"')
		e.buf = hex.AppendEncode(e.buf, v.Bytes())
		e.buf = append(e.buf, '"')
	case kindEnum:
		n := v.Enum()
		if name, ok := f.enum.names[n]; ok {
			e.buf = append(e.buf, name...)
		} else if f.enum.nullValue {
			e.buf = append(e.buf, "null"...)
		} else {
			e.buf = strconv.AppendInt(e.buf, int64(n), 10)
		}
	}
	return nil
}

// float writes a number the way encoding/json does.
func (e *encoder) float(f float64, bits int) error {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return e.errorf("unsupported number %v", f)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) ||
			bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	e.buf = strconv.AppendFloat(e.buf, f, format, -1, bits)
	if format == 'e' {
		// Clean up e-09 to e-9, as encoding/json does.
		n := len(e.buf)
		if n >= 4 && e.buf[n-4] == 'e' && e.buf[n-3] == '-' && e.buf[n-2] == '0' {
			e.buf[n-2] = e.buf[n-1]
			e.buf = e.buf[:n-1]
		}
	}
	return nil
}
