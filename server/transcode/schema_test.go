package transcode_test

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	hivegatev1 "github.com/hivegate/hivegate/gen/hivegate/v1"

	_ "google.golang.org/protobuf/types/known/structpb"    // registers google/protobuf/struct.proto
	_ "google.golang.org/protobuf/types/known/timestamppb" // registers google/protobuf/timestamp.proto
)

// The test schema is built at test time from descriptorpb, so these tests do
// not depend on the generated code under gen/. It covers every rule of the
// codec; see testSchemaFile for the messages.

const (
	shapeTuple = hivegatev1.JsonShape_JSON_SHAPE_TUPLE
	shapeBare  = hivegatev1.JsonShape_JSON_SHAPE_BARE
)

// rawOption encodes an option as an unknown field, the way a descriptor
// read without the extension types linked carries it.
func rawOption(num protowire.Number, v any) []byte {
	switch v := v.(type) {
	case int:
		b := protowire.AppendTag(nil, num, protowire.VarintType)
		return protowire.AppendVarint(b, uint64(v))
	case string:
		b := protowire.AppendTag(nil, num, protowire.BytesType)
		return protowire.AppendString(b, v)
	}
	panic("bad option value")
}

// optionStyle says how the test schema carries hivegate's options: as
// extensions set with the generated extension types (raw false), or as
// unknown fields (raw true).
type optionStyle struct{ raw bool }

func (o optionStyle) msg(shape hivegatev1.JsonShape) *descriptorpb.MessageOptions {
	opts := &descriptorpb.MessageOptions{}
	if o.raw {
		opts.ProtoReflect().SetUnknown(rawOption(51001, int(shape)))
	} else {
		proto.SetExtension(opts, hivegatev1.E_JsonShape, shape)
	}
	return opts
}

func (o optionStyle) field(key string) *descriptorpb.FieldOptions {
	opts := &descriptorpb.FieldOptions{}
	if o.raw {
		opts.ProtoReflect().SetUnknown(rawOption(51002, key))
	} else {
		proto.SetExtension(opts, hivegatev1.E_JsonKey, key)
	}
	return opts
}

func (o optionStyle) method(name string) *descriptorpb.MethodOptions {
	opts := &descriptorpb.MethodOptions{}
	if o.raw {
		opts.ProtoReflect().SetUnknown(rawOption(51003, name))
	} else {
		proto.SetExtension(opts, hivegatev1.E_JsonrpcMethod, name)
	}
	return opts
}

func (o optionStyle) enumValue(name string) *descriptorpb.EnumValueOptions {
	opts := &descriptorpb.EnumValueOptions{}
	if o.raw {
		opts.ProtoReflect().SetUnknown(rawOption(51004, name))
	} else {
		proto.SetExtension(opts, hivegatev1.E_HivedName, name)
	}
	return opts
}

// field builders.
type fieldOpt func(*descriptorpb.FieldDescriptorProto)

func repeated(f *descriptorpb.FieldDescriptorProto) {
	f.Label = descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
}

func optional(f *descriptorpb.FieldDescriptorProto) { f.Proto3Optional = proto.Bool(true) }

func jsonKey(o optionStyle, k string) fieldOpt {
	return func(f *descriptorpb.FieldDescriptorProto) { f.Options = o.field(k) }
}

func inOneof(i int32) fieldOpt {
	return func(f *descriptorpb.FieldDescriptorProto) { f.OneofIndex = proto.Int32(i) }
}

func fld(name string, num int32, typ descriptorpb.FieldDescriptorProto_Type, typeName string, opts ...fieldOpt) *descriptorpb.FieldDescriptorProto {
	f := &descriptorpb.FieldDescriptorProto{
		Name:   proto.String(name),
		Number: proto.Int32(num),
		Label:  descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
		Type:   typ.Enum(),
	}
	if typeName != "" {
		f.TypeName = proto.String(typeName)
	}
	for _, o := range opts {
		o(f)
	}
	return f
}

const (
	tString  = descriptorpb.FieldDescriptorProto_TYPE_STRING
	tBool    = descriptorpb.FieldDescriptorProto_TYPE_BOOL
	tInt32   = descriptorpb.FieldDescriptorProto_TYPE_INT32
	tInt64   = descriptorpb.FieldDescriptorProto_TYPE_INT64
	tUint32  = descriptorpb.FieldDescriptorProto_TYPE_UINT32
	tUint64  = descriptorpb.FieldDescriptorProto_TYPE_UINT64
	tDouble  = descriptorpb.FieldDescriptorProto_TYPE_DOUBLE
	tBytes   = descriptorpb.FieldDescriptorProto_TYPE_BYTES
	tEnum    = descriptorpb.FieldDescriptorProto_TYPE_ENUM
	tMessage = descriptorpb.FieldDescriptorProto_TYPE_MESSAGE
)

// addSynthetic adds the synthetic oneofs proto3 optional fields need.
func addSynthetic(m *descriptorpb.DescriptorProto) {
	for _, f := range m.Field {
		if f.GetProto3Optional() {
			f.OneofIndex = proto.Int32(int32(len(m.OneofDecl)))
			m.OneofDecl = append(m.OneofDecl, &descriptorpb.OneofDescriptorProto{Name: proto.String("_" + f.GetName())})
		}
	}
	for _, n := range m.NestedType {
		addSynthetic(n)
	}
}

// testSchemaFile returns the test schema (package test.v1):
//
//	enum Color { COLOR_UNSPECIFIED; COLOR_DARK_RED; COLOR_BLUE [hived_name "azure"] }
//	enum ListThingsOrder { LIST_THINGS_ORDER_UNSPECIFIED; LIST_THINGS_ORDER_BY_NAME; LIST_THINGS_ORDER_BY_PAIR }
//	message Pair [TUPLE] { string account = 1; uint32 weight = 2; }
//	message Cursor [TUPLE] { Timestamp time = 1; optional string account = 2; optional uint64 id = 3; }
//	message Name [BARE] { string name = 1; }
//	message Start [BARE] { oneof start { Name by_name = 1; Pair by_pair = 2; Cursor by_cursor = 3; } }
//	message Sub { string a = 1; }
//	message Thing { ...every scalar kind, see below... }
//	message ListThingsRequest { uint32 limit = 1; ListThingsOrder order = 2; Start start = 3; optional bool flag = 4; }
//	message ListThingsResponse { repeated Thing things = 1; Start next_start = 2; }
//	message GetThingsRequest [TUPLE] { string account = 1; uint64 start = 2; uint32 limit = 3; optional uint64 low = 4; optional uint64 high = 5; }
//	message GetThingsResponse [BARE] { repeated Thing things = 1; }
//	message BadBare [BARE] { string a = 1; string b = 2; }
//	message Node { string name = 1; repeated Node children = 2; }
//	service ThingService { ListThings -> "thing_api.list_things"; GetThings -> "condenser_api.get_things"; Plain (no option) }
func testSchemaFile(o optionStyle) *descriptorpb.FileDescriptorProto {
	ts := ".google.protobuf.Timestamp"
	thing := &descriptorpb.DescriptorProto{
		Name: proto.String("Thing"),
		Field: []*descriptorpb.FieldDescriptorProto{
			fld("id", 1, tUint64, ""),
			fld("name", 2, tString, ""),
			fld("votes", 3, tInt64, ""),
			fld("small", 4, tInt32, ""),
			fld("count", 5, tUint32, ""),
			fld("flag", 6, tBool, ""),
			fld("created", 7, tMessage, ts),
			fld("color", 8, tEnum, ".test.v1.Color"),
			fld("auths", 9, tMessage, ".test.v1.Pair", repeated),
			fld("renamed", 10, tString, "", jsonKey(o, "from")),
			fld("memo", 11, tString, "", optional),
			fld("extra", 12, tMessage, ".google.protobuf.Value"),
			fld("nums", 13, tInt64, "", repeated),
			fld("sub", 14, tMessage, ".test.v1.Sub"),
			fld("tally", 15, tMessage, ".test.v1.Thing.TallyEntry", repeated),
			fld("raw", 16, tBytes, ""),
			fld("ratio", 17, tDouble, ""),
			fld("meta", 18, tMessage, ".google.protobuf.Struct"),
			fld("opt_color", 19, tEnum, ".test.v1.Color", optional),
			fld("big", 20, tUint64, ""),
			fld("values", 21, tMessage, ".google.protobuf.Value", repeated),
		},
		NestedType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("TallyEntry"),
			Field: []*descriptorpb.FieldDescriptorProto{
				fld("key", 1, tString, ""),
				fld("value", 2, tInt64, ""),
			},
			Options: &descriptorpb.MessageOptions{MapEntry: proto.Bool(true)},
		}},
	}
	msgs := []*descriptorpb.DescriptorProto{
		{
			Name:    proto.String("Pair"),
			Options: o.msg(shapeTuple),
			Field:   []*descriptorpb.FieldDescriptorProto{fld("account", 1, tString, ""), fld("weight", 2, tUint32, "")},
		},
		{
			Name:    proto.String("Cursor"),
			Options: o.msg(shapeTuple),
			Field: []*descriptorpb.FieldDescriptorProto{
				fld("time", 1, tMessage, ts),
				fld("account", 2, tString, "", optional),
				fld("id", 3, tUint64, "", optional),
			},
		},
		{
			Name:    proto.String("Name"),
			Options: o.msg(shapeBare),
			Field:   []*descriptorpb.FieldDescriptorProto{fld("name", 1, tString, "")},
		},
		{
			Name:      proto.String("Start"),
			Options:   o.msg(shapeBare),
			OneofDecl: []*descriptorpb.OneofDescriptorProto{{Name: proto.String("start")}},
			Field: []*descriptorpb.FieldDescriptorProto{
				fld("by_name", 1, tMessage, ".test.v1.Name", inOneof(0)),
				fld("by_pair", 2, tMessage, ".test.v1.Pair", inOneof(0)),
				fld("by_cursor", 3, tMessage, ".test.v1.Cursor", inOneof(0)),
			},
		},
		{
			Name:  proto.String("Sub"),
			Field: []*descriptorpb.FieldDescriptorProto{fld("a", 1, tString, "")},
		},
		thing,
		{
			Name: proto.String("ListThingsRequest"),
			Field: []*descriptorpb.FieldDescriptorProto{
				fld("limit", 1, tUint32, ""),
				fld("order", 2, tEnum, ".test.v1.ListThingsOrder"),
				fld("start", 3, tMessage, ".test.v1.Start"),
				fld("flag", 4, tBool, "", optional),
			},
		},
		{
			Name: proto.String("ListThingsResponse"),
			Field: []*descriptorpb.FieldDescriptorProto{
				fld("things", 1, tMessage, ".test.v1.Thing", repeated),
				fld("next_start", 2, tMessage, ".test.v1.Start"),
			},
		},
		{
			Name:    proto.String("GetThingsRequest"),
			Options: o.msg(shapeTuple),
			Field: []*descriptorpb.FieldDescriptorProto{
				fld("account", 1, tString, ""),
				fld("start", 2, tUint64, ""),
				fld("limit", 3, tUint32, ""),
				fld("low", 4, tUint64, "", optional),
				fld("high", 5, tUint64, "", optional),
			},
		},
		{
			Name:    proto.String("GetThingsResponse"),
			Options: o.msg(shapeBare),
			Field:   []*descriptorpb.FieldDescriptorProto{fld("things", 1, tMessage, ".test.v1.Thing", repeated)},
		},
		{
			Name:    proto.String("BadBare"),
			Options: o.msg(shapeBare),
			Field:   []*descriptorpb.FieldDescriptorProto{fld("a", 1, tString, ""), fld("b", 2, tString, "")},
		},
		{
			Name: proto.String("Node"),
			Field: []*descriptorpb.FieldDescriptorProto{
				fld("name", 1, tString, ""),
				fld("children", 2, tMessage, ".test.v1.Node", repeated),
			},
		},
	}
	for _, m := range msgs {
		addSynthetic(m)
	}
	enumValue := func(name string, num int32, opts *descriptorpb.EnumValueOptions) *descriptorpb.EnumValueDescriptorProto {
		return &descriptorpb.EnumValueDescriptorProto{Name: proto.String(name), Number: proto.Int32(num), Options: opts}
	}
	method := func(name, in, out string, opts *descriptorpb.MethodOptions) *descriptorpb.MethodDescriptorProto {
		return &descriptorpb.MethodDescriptorProto{
			Name: proto.String(name), InputType: proto.String(in), OutputType: proto.String(out), Options: opts,
		}
	}
	return &descriptorpb.FileDescriptorProto{
		Name:       proto.String("test/v1/test.proto"),
		Package:    proto.String("test.v1"),
		Syntax:     proto.String("proto3"),
		Dependency: []string{"google/protobuf/timestamp.proto", "google/protobuf/struct.proto"},
		EnumType: []*descriptorpb.EnumDescriptorProto{
			{
				Name: proto.String("Color"),
				Value: []*descriptorpb.EnumValueDescriptorProto{
					enumValue("COLOR_UNSPECIFIED", 0, nil),
					enumValue("COLOR_DARK_RED", 1, nil),
					enumValue("COLOR_BLUE", 2, o.enumValue("azure")),
				},
			},
			{
				Name: proto.String("ListThingsOrder"),
				Value: []*descriptorpb.EnumValueDescriptorProto{
					enumValue("LIST_THINGS_ORDER_UNSPECIFIED", 0, nil),
					enumValue("LIST_THINGS_ORDER_BY_NAME", 1, nil),
					enumValue("LIST_THINGS_ORDER_BY_PAIR", 2, nil),
				},
			},
		},
		MessageType: msgs,
		Service: []*descriptorpb.ServiceDescriptorProto{{
			Name: proto.String("ThingService"),
			Method: []*descriptorpb.MethodDescriptorProto{
				method("ListThings", ".test.v1.ListThingsRequest", ".test.v1.ListThingsResponse", o.method("thing_api.list_things")),
				method("GetThings", ".test.v1.GetThingsRequest", ".test.v1.GetThingsResponse", o.method("condenser_api.get_things")),
				method("Plain", ".test.v1.Sub", ".test.v1.Sub", nil),
			},
		}},
	}
}

// testSchema builds the test schema, with options set as extensions, into a
// private registry.
func testSchema(t testing.TB) (protoreflect.FileDescriptor, *protoregistry.Files) {
	t.Helper()
	return buildTestSchema(t, optionStyle{})
}

// buildTestSchema builds the test schema with the given option style.
func buildTestSchema(t testing.TB, o optionStyle) (protoreflect.FileDescriptor, *protoregistry.Files) {
	t.Helper()
	fd, err := protodesc.NewFile(testSchemaFile(o), protoregistry.GlobalFiles)
	if err != nil {
		t.Fatalf("build test schema: %v", err)
	}
	files := new(protoregistry.Files)
	if err := files.RegisterFile(fd); err != nil {
		t.Fatalf("register test schema: %v", err)
	}
	return fd, files
}

// newMsg returns an empty dynamic message of the named test type.
func newMsg(t testing.TB, fd protoreflect.FileDescriptor, name string) *dynamicpb.Message {
	t.Helper()
	md := fd.Messages().ByName(protoreflect.Name(name))
	if md == nil {
		t.Fatalf("no message %s in the test schema", name)
	}
	return dynamicpb.NewMessage(md)
}
