package transcode

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Field numbers of the extensions declared in proto/hivegate/v1/options.proto.
// They are read by number (from known extensions or from unknown fields) so
// that the codec does not depend on the generated extension types being linked.
const (
	optJSONShape     protowire.Number = 51001 // MessageOptions, enum JsonShape
	optJSONKey       protowire.Number = 51002 // FieldOptions, string
	optJSONRPCMethod protowire.Number = 51003 // MethodOptions, string
	optHivedName     protowire.Number = 51004 // EnumValueOptions, string
	optTimeSep       protowire.Number = 51014 // FieldOptions, string
	optJSONQuoted    protowire.Number = 51017 // FieldOptions, bool
	optSkip          protowire.Number = 51020 // FieldOptions, bool
	optJSONDecimal   protowire.Number = 51023 // FieldOptions, string
	shapeUnspecified                  = 0     // hivegate.v1.JSON_SHAPE_UNSPECIFIED
	shapeTuple                        = 1     // hivegate.v1.JSON_SHAPE_TUPLE
	shapeBare                         = 2     // hivegate.v1.JSON_SHAPE_BARE
	shapeLegacy                       = 3     // hivegate.v1.JSON_SHAPE_LEGACY_ASSET
)

// optionValue is the last value of extension number n on an options message:
// an integer (varint) or a string. ok is false when the option is not set.
type optionValue struct {
	num uint64
	str string
	ok  bool
}

// readOption finds extension number n in opts, whether it was parsed as a
// known extension or kept as an unknown field.
func readOption(opts proto.Message, n protowire.Number) optionValue {
	var v optionValue
	if opts == nil {
		return v
	}
	m := opts.ProtoReflect()
	if !m.IsValid() {
		return v
	}
	m.Range(func(fd protoreflect.FieldDescriptor, val protoreflect.Value) bool {
		if fd.Number() != n || !fd.IsExtension() {
			return true
		}
		switch fd.Kind() {
		case protoreflect.EnumKind:
			v = optionValue{num: uint64(val.Enum()), ok: true}
		case protoreflect.StringKind:
			v = optionValue{str: val.String(), ok: true}
		case protoreflect.BoolKind:
			if val.Bool() {
				v = optionValue{num: 1, ok: true}
			}
		}
		return false
	})
	if v.ok {
		return v
	}
	b := m.GetUnknown()
	for len(b) > 0 {
		num, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return v
		}
		b = b[l:]
		switch {
		case num == n && typ == protowire.VarintType:
			x, l := protowire.ConsumeVarint(b)
			if l < 0 {
				return v
			}
			v = optionValue{num: x, ok: true}
			b = b[l:]
		case num == n && typ == protowire.BytesType:
			x, l := protowire.ConsumeBytes(b)
			if l < 0 {
				return v
			}
			v = optionValue{str: string(x), ok: true}
			b = b[l:]
		default:
			l := protowire.ConsumeFieldValue(num, typ, b)
			if l < 0 {
				return v
			}
			b = b[l:]
		}
	}
	return v
}

// JSONRPCMethod returns the (hivegate.v1.jsonrpc_method) option of an RPC,
// or "" when the RPC has none.
func JSONRPCMethod(md protoreflect.MethodDescriptor) string {
	return readOption(md.Options(), optJSONRPCMethod).str
}
