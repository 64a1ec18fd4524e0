package transcode

import (
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// UnmarshalField decodes the hived JSON value data into one field of m using a
// shared Codec. See Codec.UnmarshalField.
func UnmarshalField(data []byte, m proto.Message, fd protoreflect.FieldDescriptor) (Unknown, error) {
	return defaultCodec.UnmarshalField(data, m, fd)
}

// UnmarshalField decodes the hived JSON value data into field fd of m, as
// Unmarshal would decode that field's value inside m's JSON, and merges it
// into m (the other fields keep their values; a repeated field is appended
// to). It decodes a value whose message shape cannot say which field it
// belongs to, for example the `start` of a typed list request: a BARE oneof
// whose cases are several tuples is ambiguous as a whole, but not once the
// case is known from the order.
//
// On failure m is unchanged. JSON null leaves the field unset.
func (c *Codec) UnmarshalField(data []byte, m proto.Message, fd protoreflect.FieldDescriptor) (Unknown, error) {
	mr := m.ProtoReflect()
	if fd.ContainingMessage() != mr.Descriptor() {
		return nil, &Error{Offset: 0, Msg: fmt.Sprintf("field %s is not a field of %s", fd.FullName(), mr.Descriptor().FullName())}
	}
	p := c.plan(mr.Descriptor())
	if p.err != nil {
		return nil, &Error{Offset: 0, Msg: p.err.Error()}
	}
	f := p.fieldByNumber(fd.Number())
	if f == nil {
		return nil, &Error{Offset: 0, Msg: fmt.Sprintf("field %s is not part of hived JSON", fd.FullName())}
	}
	bp := c.getBuf()
	defer c.putBuf(bp)
	d := decoder{data: data, out: (*bp)[:0]}
	defer func() { *bp = d.out }()
	var err error
	if d.peek() == 0 {
		err = d.errorf("unexpected end of JSON input")
	} else {
		err = d.field(f)
	}
	if err == nil && d.peek() != 0 {
		err = d.errorf("invalid character %q after top-level value", d.data[d.pos])
	}
	if err != nil {
		return d.unknown, err
	}
	if err := (proto.UnmarshalOptions{Merge: true}).Unmarshal(d.out, m); err != nil {
		return d.unknown, &Error{Offset: len(data), Msg: "build message: " + err.Error()}
	}
	return d.unknown, nil
}

// EnumName returns the name hived uses for an enum value: the
// (hivegate.v1.hived_name) option, or the value's name without the enum's
// UPPER_SNAKE prefix, lowercased (LIST_ACCOUNTS_ORDER_BY_NAME is "by_name").
// ok is false for a *_UNSPECIFIED zero without the option, which hived never
// sees.
func EnumName(v protoreflect.EnumValueDescriptor) (name string, ok bool) {
	p := defaultCodec.enumPlan(v.Parent().(protoreflect.EnumDescriptor))
	q, ok := p.names[v.Number()]
	if !ok {
		return "", false
	}
	// names holds the quoted form, ready to append to JSON; hived names are
	// plain identifiers, so unquoting is dropping the quotes.
	return string(q[1 : len(q)-1]), true
}
