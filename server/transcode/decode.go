package transcode

import (
	"bytes"

	"google.golang.org/protobuf/proto"
)

// Unmarshal decodes hived JSON into m using a shared Codec. See
// Codec.Unmarshal.
func Unmarshal(data []byte, m proto.Message) (Unknown, error) {
	return defaultCodec.Unmarshal(data, m)
}

// defaultCodec backs the package-level functions. Its only state is a cache
// of plans derived from immutable descriptors, which no caller can observe.
var defaultCodec = NewCodec()

// Unmarshal resets m and decodes the hived JSON document data into it.
//
// Object keys are matched to field names or (hivegate.v1.json_key); TUPLE
// messages read JSON arrays element by element in field-number order (fewer
// elements leave the trailing fields unset); BARE messages read the value of
// their single field, or of the one oneof case the JSON kind selects. JSON
// null leaves a field unset (a google.protobuf.Value field becomes a null
// Value). Keys and tuple elements without a field are skipped and their
// paths returned in Unknown; they are not an error. A key repeated in one
// object merges as protobuf does: the last scalar wins, messages merge and
// lists concatenate. Failures are *Error values naming the JSON path.
func (c *Codec) Unmarshal(data []byte, m proto.Message) (Unknown, error) {
	mr := m.ProtoReflect()
	p := c.plan(mr.Descriptor())
	bp := c.getBuf()
	defer c.putBuf(bp)
	d := decoder{data: data, out: (*bp)[:0]}
	defer func() { *bp = d.out }()
	var err error
	switch ch := d.peek(); {
	case ch == 0:
		err = d.errorf("unexpected end of JSON input")
	case ch == 'n' && p.shape != shapeValue:
		err = d.literal("null")
	default:
		err = d.message(p)
	}
	if err == nil && d.peek() != 0 {
		err = d.errorf("invalid character %q after top-level value", d.data[d.pos])
	}
	if err != nil {
		proto.Reset(m)
		return d.unknown, err
	}
	if err := proto.Unmarshal(d.out, m); err != nil {
		return d.unknown, &Error{Offset: len(data), Msg: "build message: " + err.Error()}
	}
	return d.unknown, nil
}

// getBuf and putBuf pool the byte buffers of encoding and decoding.
func (c *Codec) getBuf() *[]byte {
	if bp, ok := c.bufs.Get().(*[]byte); ok {
		return bp
	}
	return new([]byte)
}

func (c *Codec) putBuf(bp *[]byte) {
	if cap(*bp) <= maxPooledBuffer {
		c.bufs.Put(bp)
	}
}

// message writes the fields of a non-null JSON value decoded by plan p.
func (d *decoder) message(p *messagePlan) error {
	if p.err != nil {
		return d.errorf("%v", p.err)
	}
	switch p.shape {
	case shapeTupleArr:
		return d.tuple(p)
	case shapeBareValue:
		return d.bare(p)
	case shapeTimestamp:
		return d.timestamp()
	case shapeLegacyAsset:
		return d.legacyAsset()
	case shapeValue:
		return d.value(p)
	case shapeStruct:
		return d.structObject(p)
	case shapeListValue:
		return d.field(p.fieldByNumber(listValueValues))
	default:
		return d.object(p)
	}
}

// object decodes {"key": value, ...}.
func (d *decoder) object(p *messagePlan) error {
	return d.members(func(key []byte) error {
		if f := p.byKey[string(key)]; f != nil {
			if d.neverTime(f) {
				return nil // hived's never-time: the Timestamp stays unset
			}
			return d.field(f)
		}
		d.addUnknown()
		return d.skipValue()
	})
}

// members walks a JSON object, calling value for each member with the
// decoder positioned at the member's value and the key pushed on the path.
func (d *decoder) members(value func(key []byte) error) error {
	if err := d.expect('{', "an object"); err != nil {
		return err
	}
	if err := d.enter(); err != nil {
		return err
	}
	defer d.leave()
	if d.peek() == '}' {
		d.pos++
		return nil
	}
	for {
		key, escaped, err := d.readString()
		if err != nil {
			return err
		}
		if escaped {
			key = bytes.Clone(key)
		}
		if err := d.expect(':', "':' after object key"); err != nil {
			return err
		}
		d.pushKey(key)
		err = value(key)
		d.pop()
		if err != nil {
			return err
		}
		if done, err := d.next('}'); done || err != nil {
			return err
		}
	}
}

// tuple decodes [field1, field2, ...]; extra elements are unknown.
func (d *decoder) tuple(p *messagePlan) error {
	if err := d.expect('[', "an array"); err != nil {
		return err
	}
	if err := d.enter(); err != nil {
		return err
	}
	defer d.leave()
	if d.peek() == ']' {
		d.pos++
		return nil
	}
	for i := 0; ; i++ {
		d.pushIndex(i)
		var err error
		if i < len(p.fields) {
			err = d.field(p.fields[i])
		} else {
			d.addUnknown()
			err = d.skipValue()
		}
		d.pop()
		if err != nil {
			return err
		}
		if done, err := d.next(']'); done || err != nil {
			return err
		}
	}
}

// bare decodes the value of the message's single field, or of the one oneof
// case whose JSON kind matches.
func (d *decoder) bare(p *messagePlan) error {
	if p.oneof == nil {
		return d.field(p.fields[0])
	}
	c := d.peek()
	var match *fieldPlan
	n := 0
	for _, f := range p.fields {
		if f.accepts(c) {
			match = f
			n++
		}
	}
	switch n {
	case 1:
		return d.field(match)
	case 0:
		return d.unexpected("a value of one case of oneof " + string(p.oneof.Name()))
	default:
		return d.errorf("ambiguous value for oneof %s: %d cases accept it", p.oneof.Name(), n)
	}
}

// accepts reports whether a JSON value starting with c naturally encodes the
// field (numbers for integers, strings for strings, enum names and times):
// it is used only to pick the case of a BARE oneof.
func (f *fieldPlan) accepts(c byte) bool {
	if f.list {
		return c == '['
	}
	if f.mapVal != nil {
		return c == '{'
	}
	switch f.kind {
	case kindBool:
		return c == 't' || c == 'f'
	case kindString, kindBytes, kindEnum:
		return c == '"'
	case kindMessage:
		switch f.msg.shape {
		case shapeTupleArr, shapeListValue:
			return c == '['
		case shapeObject, shapeStruct:
			return c == '{'
		case shapeTimestamp, shapeLegacyAsset:
			if f.decimal != "" {
				return c == '-' || isDigit(c)
			}
			return c == '"'
		case shapeValue:
			return true
		default: // BARE
			for _, g := range f.msg.fields {
				if g.accepts(c) {
					return true
				}
			}
			return false
		}
	default:
		return c == '-' || isDigit(c)
	}
}

// field decodes the value of one field; null leaves it unset.
func (d *decoder) field(f *fieldPlan) error {
	if d.peek() == 'n' {
		if err := d.literal("null"); err != nil {
			return err
		}
		if f.isValueMsg() && !f.list {
			d.appendNullValue(f.desc.Number())
		}
		return nil
	}
	switch {
	case f.list:
		return d.list(f)
	case f.mapVal != nil:
		return d.mapField(f)
	default:
		return d.element(f)
	}
}

// list decodes a JSON array into a repeated field.
func (d *decoder) list(f *fieldPlan) error {
	if err := d.expect('[', "an array"); err != nil {
		return err
	}
	if err := d.enter(); err != nil {
		return err
	}
	defer d.leave()
	if d.peek() == ']' {
		d.pos++
		return nil
	}
	for i := 0; ; i++ {
		d.pushIndex(i)
		var err error
		switch {
		case d.peek() == 'n' && f.kind == kindMessage && f.msg.shape == shapeBareValue:
			// hived's vector<optional<T>>: null is an empty element, which
			// encodes back as null.
			if err = d.literal("null"); err == nil {
				d.endLen(d.beginLen(f.desc.Number()))
			}
		case d.peek() == 'n' && !f.isValueMsg():
			err = d.errorf("null is not a valid %s element", elementName(f))
		default:
			err = d.element(f)
		}
		d.pop()
		if err != nil {
			return err
		}
		if done, err := d.next(']'); done || err != nil {
			return err
		}
	}
}

// element decodes one non-null value of a singular field, list element or
// map value, tagged with the field's number.
func (d *decoder) element(f *fieldPlan) error {
	if f.kind != kindMessage {
		return d.scalar(f)
	}
	if f.decimal != "" {
		return d.decimalAsset(f)
	}
	start := d.beginLen(f.desc.Number())
	if err := d.message(f.msg); err != nil {
		return err
	}
	d.endLen(start)
	return nil
}

// elementName names a field's element type in messages.
func elementName(f *fieldPlan) string {
	if f.kind == kindMessage {
		return string(f.msg.desc.FullName())
	}
	return f.desc.Kind().String()
}

// mapField decodes a JSON object into a map field.
func (d *decoder) mapField(f *fieldPlan) error {
	return d.members(func(key []byte) error { return d.mapEntry(f, key) })
}

// mapEntry writes one map entry message {1: key, 2: value}.
func (d *decoder) mapEntry(f *fieldPlan, key []byte) error {
	if d.peek() == 'n' && !f.mapVal.isValueMsg() {
		return d.errorf("null is not a valid map value")
	}
	start := d.beginLen(f.desc.Number())
	if err := d.mapKey(f.mapKey, key); err != nil {
		return err
	}
	if err := d.element(f.mapVal); err != nil {
		return err
	}
	d.endLen(start)
	return nil
}

// mapKey writes a JSON object key as the map entry's key field.
func (d *decoder) mapKey(k *fieldPlan, key []byte) error {
	num := k.desc.Number()
	switch k.kind {
	case kindString:
		d.appendBytesField(num, key)
	case kindBool:
		switch string(key) {
		case "true":
			d.appendNumeric(num, k.desc.Kind(), 1)
		case "false":
			d.appendNumeric(num, k.desc.Kind(), 0)
		default:
			return d.errorf("invalid bool map key %q", key)
		}
	default:
		bits, err := parseInt(key, k.kind)
		if err != nil {
			return d.errorf("%v", err)
		}
		d.appendNumeric(num, k.desc.Kind(), bits)
	}
	return nil
}
