package transcode

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hivegate/hivegate/jsonwire"
)

// scalarKind is a field's value kind, collapsed to what the JSON mapping
// needs to tell apart.
type scalarKind uint8

const (
	kindBool scalarKind = iota
	kindInt32
	kindInt64
	kindUint32
	kindUint64
	kindFloat
	kindDouble
	kindString
	kindBytes
	kindEnum
	kindMessage
)

// shape is how a message is laid out in JSON.
type shape uint8

const (
	shapeObject      shape = iota // {"key": value, ...}
	shapeTupleArr                 // [field1, field2, ...]
	shapeBareValue                // the single (set) field's value
	shapeTimestamp                // google.protobuf.Timestamp: "YYYY-MM-DDTHH:MM:SS"
	shapeValue                    // google.protobuf.Value: any JSON
	shapeStruct                   // google.protobuf.Struct: any JSON object
	shapeListValue                // google.protobuf.ListValue: any JSON array
	shapeLegacyAsset              // a legacy asset string "1.000 HIVE" (JSON_SHAPE_LEGACY_ASSET)
)

// messagePlan is everything the codec needs about one message descriptor,
// computed once and cached by Codec.
type messagePlan struct {
	desc  protoreflect.MessageDescriptor
	shape shape
	// fields are the fields present in hived JSON in field-number order
	// (next_start of a response is left out).
	fields []*fieldPlan
	// byKey finds an object field by its JSON key.
	byKey map[string]*fieldPlan
	// oneof is set for a BARE message whose fields are the cases of one oneof.
	oneof protoreflect.OneofDescriptor
	// err reports an inconsistent schema; it is returned when the plan is used
	// so that unrelated messages still work.
	err error
}

// fieldPlan describes one field.
type fieldPlan struct {
	desc protoreflect.FieldDescriptor
	// key is the JSON object key; keyJSON is `"key":` ready to append.
	key      string
	keyBytes []byte
	keyJSON  []byte
	kind     scalarKind
	list     bool
	// presence is true when an unset field is omitted (proto3 optional,
	// message fields, oneof cases).
	presence bool
	msg      *messagePlan // kind == kindMessage
	enum     *enumPlan    // kind == kindEnum
	// mapKey and mapVal describe a map field's key and value.
	mapKey *fieldPlan
	mapVal *fieldPlan
	// timeSep is the date/time separator of a Timestamp field's string
	// ((hivegate.v1.time_separator)); 0 means hived's 'T'.
	timeSep byte
	// quoted writes a 64-bit integer as a JSON string at every size
	// ((hivegate.v1.json_quoted)).
	quoted bool
	// decimal is the symbol of a LegacyAsset field written as a bare
	// number ((hivegate.v1.json_decimal)); "" otherwise.
	decimal string
}

// Codec converts between hived JSON and protobuf messages. It caches one plan
// per message descriptor, so reuse a Codec (or use the package functions,
// which share one). A Codec is safe for concurrent use.
type Codec struct {
	plans sync.Map // protoreflect.MessageDescriptor -> *messagePlan
	enums sync.Map // protoreflect.EnumDescriptor -> *enumPlan
	mu    sync.Mutex
	bufs  sync.Pool // *[]byte
}

// NewCodec returns an empty Codec.
func NewCodec() *Codec {
	return &Codec{}
}

// plan returns the cached plan of md, building it (and the plans of every
// message it reaches) on first use.
func (c *Codec) plan(md protoreflect.MessageDescriptor) *messagePlan {
	if p, ok := c.plans.Load(md); ok {
		return p.(*messagePlan)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.plans.Load(md); ok {
		return p.(*messagePlan)
	}
	b := planBuilder{c: c, msgs: map[protoreflect.MessageDescriptor]*messagePlan{}}
	p := b.message(md)
	// Publish only complete plans: recursive types were linked while building.
	for d, mp := range b.msgs {
		c.plans.Store(d, mp)
	}
	return p
}

// planBuilder builds a connected set of plans under Codec.mu.
type planBuilder struct {
	c    *Codec
	msgs map[protoreflect.MessageDescriptor]*messagePlan
}

// message returns the plan of md, from the cache, from the plans being
// built, or by building it.
func (b *planBuilder) message(md protoreflect.MessageDescriptor) *messagePlan {
	if p, ok := b.c.plans.Load(md); ok {
		return p.(*messagePlan)
	}
	if p, ok := b.msgs[md]; ok {
		return p
	}
	p := &messagePlan{desc: md}
	b.msgs[md] = p
	switch md.FullName() {
	case "google.protobuf.Timestamp":
		p.shape = shapeTimestamp
	case "google.protobuf.Value":
		p.shape = shapeValue
	case "google.protobuf.Struct":
		p.shape = shapeStruct
	case "google.protobuf.ListValue":
		p.shape = shapeListValue
	case "google.protobuf.DoubleValue", "google.protobuf.FloatValue",
		"google.protobuf.Int64Value", "google.protobuf.UInt64Value",
		"google.protobuf.Int32Value", "google.protobuf.UInt32Value",
		"google.protobuf.BoolValue", "google.protobuf.StringValue",
		"google.protobuf.BytesValue":
		p.shape = shapeBareValue
	default:
		switch readOption(md.Options(), optJSONShape).num {
		case shapeTuple:
			p.shape = shapeTupleArr
		case shapeBare:
			p.shape = shapeBareValue
		case shapeLegacy:
			p.shape = shapeLegacyAsset
		}
	}
	isResponse := strings.HasSuffix(string(md.Name()), "Response")
	fds := md.Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		if isResponse && fd.Name() == "next_start" {
			continue
		}
		if readOption(fd.Options(), optSkip).num == 1 {
			continue // hivegate's own page state (hivegate.v1.skip), never in hived JSON
		}
		f := b.field(fd)
		if f.decimal != "" && (f.kind != kindMessage || f.msg.shape != shapeLegacyAsset) {
			p.err = fmt.Errorf("schema: %s: json_decimal is set on a field that is not a JSON_SHAPE_LEGACY_ASSET message", fd.FullName())
		}
		p.fields = append(p.fields, f)
	}
	slices.SortFunc(p.fields, func(x, y *fieldPlan) int {
		return int(x.desc.Number()) - int(y.desc.Number())
	})
	p.byKey = make(map[string]*fieldPlan, len(p.fields))
	for _, f := range p.fields {
		if prev, dup := p.byKey[f.key]; dup && p.shape == shapeObject {
			p.err = fmt.Errorf("schema: %s: fields %s and %s share the JSON key %q",
				md.FullName(), prev.desc.Name(), f.desc.Name(), f.key)
		}
		p.byKey[f.key] = f
	}
	switch p.shape {
	case shapeBareValue:
		b.checkBare(p)
	case shapeLegacyAsset:
		b.checkLegacyAsset(p)
	}
	return p
}

// checkBare validates a BARE message: one field, or the cases of one oneof.
func (b *planBuilder) checkBare(p *messagePlan) {
	if len(p.fields) == 1 {
		return
	}
	var od protoreflect.OneofDescriptor
	for _, f := range p.fields {
		o := f.desc.ContainingOneof()
		if o == nil || o.IsSynthetic() || (od != nil && o != od) {
			od = nil
			break
		}
		od = o
	}
	if od == nil || len(p.fields) == 0 {
		p.err = fmt.Errorf("schema: %s is JSON_SHAPE_BARE but has neither exactly one field nor one oneof",
			p.desc.FullName())
		return
	}
	p.oneof = od
}

// field builds the plan of one field.
func (b *planBuilder) field(fd protoreflect.FieldDescriptor) *fieldPlan {
	f := &fieldPlan{desc: fd, key: fd.TextName()}
	if k := readOption(fd.Options(), optJSONKey); k.ok && k.str != "" {
		f.key = k.str
	}
	f.keyBytes = []byte(f.key)
	f.keyJSON = jsonwire.AppendString(nil, f.key)
	f.keyJSON = append(f.keyJSON, ':')
	if fd.IsMap() {
		f.mapKey = b.field(fd.MapKey())
		f.mapVal = b.field(fd.MapValue())
		return f
	}
	f.list = fd.IsList()
	f.presence = fd.HasPresence()
	f.quoted = readOption(fd.Options(), optJSONQuoted).num == 1
	f.decimal = readOption(fd.Options(), optJSONDecimal).str
	switch fd.Kind() {
	case protoreflect.BoolKind:
		f.kind = kindBool
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		f.kind = kindInt32
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		f.kind = kindInt64
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		f.kind = kindUint32
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		f.kind = kindUint64
	case protoreflect.FloatKind:
		f.kind = kindFloat
	case protoreflect.DoubleKind:
		f.kind = kindDouble
	case protoreflect.StringKind:
		f.kind = kindString
	case protoreflect.BytesKind:
		f.kind = kindBytes
	case protoreflect.EnumKind:
		f.kind = kindEnum
		f.enum = b.c.enumPlan(fd.Enum())
	case protoreflect.MessageKind, protoreflect.GroupKind:
		f.kind = kindMessage
		f.msg = b.message(fd.Message())
		if sep := readOption(fd.Options(), optTimeSep).str; sep != "" && fd.Message().FullName() == "google.protobuf.Timestamp" {
			f.timeSep = sep[0]
		}
	}
	return f
}

// isValueMsg reports whether the field holds a google.protobuf.Value, whose
// JSON null is a value rather than an unset field.
func (f *fieldPlan) isValueMsg() bool {
	return f.kind == kindMessage && f.msg.shape == shapeValue
}

// fieldByNumber returns the plan of field n, or nil.
func (p *messagePlan) fieldByNumber(n protoreflect.FieldNumber) *fieldPlan {
	for _, f := range p.fields {
		if f.desc.Number() == n {
			return f
		}
	}
	return nil
}
