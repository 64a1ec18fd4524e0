package transcode

import (
	"math"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The decoder does not set fields through protoreflect: it transcodes hived
// JSON into protobuf wire format and lets proto.Unmarshal build the message.
// proto.Unmarshal's generated fast paths avoid protoreflect's per-field
// boxing, which makes decoding several times cheaper in allocations. The
// helpers below write that wire format.

// beginLen writes the tag of a length-delimited field and a one-byte length
// placeholder; it returns the offset where the contents start.
func (d *decoder) beginLen(num protoreflect.FieldNumber) int {
	d.out = protowire.AppendTag(d.out, num, protowire.BytesType)
	d.out = append(d.out, 0)
	return len(d.out)
}

// endLen fills in the length of contents written since beginLen, moving them
// when the length needs more than one byte.
func (d *decoder) endLen(start int) {
	n := len(d.out) - start
	if n < 0x80 {
		d.out[start-1] = byte(n)
		return
	}
	extra := protowire.SizeVarint(uint64(n)) - 1
	for range extra {
		d.out = append(d.out, 0)
	}
	copy(d.out[start+extra:], d.out[start:start+n])
	protowire.AppendVarint(d.out[:start-1], uint64(n))
}

// appendBytesField writes a string or bytes field.
func (d *decoder) appendBytesField(num protoreflect.FieldNumber, b []byte) {
	d.out = protowire.AppendTag(d.out, num, protowire.BytesType)
	d.out = protowire.AppendVarint(d.out, uint64(len(b)))
	d.out = append(d.out, b...)
}

// appendNumeric writes a numeric field of kind k from its 64-bit pattern
// (two's complement for signed kinds, IEEE bits for float and double).
func (d *decoder) appendNumeric(num protoreflect.FieldNumber, k protoreflect.Kind, bits uint64) {
	switch k {
	case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		d.out = protowire.AppendTag(d.out, num, protowire.VarintType)
		d.out = protowire.AppendVarint(d.out, protowire.EncodeZigZag(int64(bits)))
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		d.out = protowire.AppendTag(d.out, num, protowire.Fixed32Type)
		d.out = protowire.AppendFixed32(d.out, uint32(bits))
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		d.out = protowire.AppendTag(d.out, num, protowire.Fixed64Type)
		d.out = protowire.AppendFixed64(d.out, bits)
	default: // int32, int64, uint32, uint64, bool, enum
		d.out = protowire.AppendTag(d.out, num, protowire.VarintType)
		d.out = protowire.AppendVarint(d.out, bits)
	}
}

// appendDouble writes a double field.
func (d *decoder) appendDouble(num protoreflect.FieldNumber, f float64) {
	d.appendNumeric(num, protoreflect.DoubleKind, math.Float64bits(f))
}
