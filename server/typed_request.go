package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/server/transcode"
)

// invalidArgument is a typed request that fails validation. Its message
// names the field ("limit: must be 1..1000, got 0"); it is returned before
// any upstream call. Like every failed call it carries a JsonRpcError
// detail: the gateway's invalid_params error (-32602) a JSON-RPC client
// would get for the same check.
func invalidArgument(format string, args ...any) *connect.Error {
	detail := fmt.Sprintf(format, args...)
	ce := connect.NewError(connect.CodeInvalidArgument, errors.New(detail))
	addJSONRPCDetail(ce, jsonrpc.NewError(jsonrpc.KindInvalidParams, detail, nil))
	return ce
}

// prepare validates a typed request, fills what hivegate sends for unset
// fields and encodes the JSON-RPC params. It returns the effective order (0
// when the method has none), which selects next_start's case. The request
// message belongs to this call and is modified in place.
//
// The steps, all driven by the schema's options:
//   - a required field (planRequired: a message field not declared
//     `optional`) must be set;
//   - the page size (limit_max) must be 1..max, or unset (the node's
//     default); the limit sent is the page size plus next_start's skip,
//     lowered for pages that count down near entry 0 (typed_page.go);
//   - order and start agree: an unset order is taken from the start's case,
//     a case of another order is invalid_argument, an unset start becomes
//     the order's first page (first_page, or the minimal cursor);
//   - a counts_down start is -1 (unset) or a sequence number;
//   - unset fields with a json_default get it;
//   - in a positional cursor an unset time is sent as 1970-01-01T00:00:00,
//     and no positional element may be left out before a set one.
func (tm *typedMethod) prepare(req protoreflect.Message) (json.RawMessage, protoreflect.EnumNumber, error) {
	for _, fd := range tm.required {
		if !req.Has(fd) {
			return nil, 0, invalidArgument("%s is required", fd.Name())
		}
	}
	pg, err := tm.page(req)
	if err != nil {
		return nil, 0, err
	}
	for _, d := range tm.defaults {
		if !written(req, d.fd) {
			req.Set(d.fd, cloneValue(d.value, d.fd))
		}
	}
	order, firstPage, err := tm.prepareStart(req)
	if err != nil {
		return nil, 0, err
	}
	// The request keeps the client's limit and skip (the answer is cut by
	// them after the call); the params carry what the node is asked.
	req = tm.sendable(req, pg)
	if tm.tuple {
		// A start left for its first_page JSON is spliced in below.
		var skip protoreflect.FieldDescriptor
		if firstPage != nil {
			skip = tm.start
		}
		if err := checkPositional(req, "", skip); err != nil {
			return nil, 0, err
		}
	}
	params, err := transcode.MarshalParams(req.Interface())
	if err != nil {
		return nil, 0, invalidArgument("%v", err)
	}
	if firstPage != nil {
		if tm.tuple {
			params, err = spliceElement(params, tm.startIndex, firstPage)
			if err != nil {
				return nil, 0, invalidArgument("%v", err)
			}
		} else {
			params = spliceMember(params, tm.startKey, firstPage)
		}
	}
	return params, order, nil
}

// prepareStart settles order and start. firstPage is the raw JSON to send
// as start when the order's first page is not the minimal cursor; start is
// then left unset in req.
func (tm *typedMethod) prepareStart(req protoreflect.Message) (order protoreflect.EnumNumber, firstPage json.RawMessage, err error) {
	if tm.start == nil {
		return 0, nil, nil
	}
	if tm.startOneof == nil {
		// A single-order cursor (list_owner_histories): start is the tuple.
		if !req.Has(tm.start) {
			req.Set(tm.start, protoreflect.ValueOfMessage(cloneMessage(tm.plainStart.minimal)))
			return 0, nil, nil
		}
		return 0, nil, tm.plainStart.fill(req.Mutable(tm.start).Message(), string(tm.start.Name())+".")
	}
	order = req.Get(tm.order).Enum()
	var caseFD protoreflect.FieldDescriptor
	if req.Has(tm.start) {
		caseFD = req.Get(tm.start).Message().WhichOneof(tm.startOneof)
	}
	switch {
	case order == 0 && caseFD == nil:
		if tm.onlyOrder == 0 {
			return 0, nil, invalidArgument("%s: must be set (or set a case of %s, which selects the order)", tm.order.Name(), tm.start.Name())
		}
		order = tm.onlyOrder
	case order == 0:
		order = tm.byCase[caseFD.Number()]
	}
	sc, ok := tm.cases[order]
	if !ok {
		return 0, nil, invalidArgument("%s: unknown value %d", tm.order.Name(), order)
	}
	if caseFD != nil && caseFD.Number() != sc.field.Number() {
		return 0, nil, invalidArgument("%s: case %s does not match %s %s", tm.start.Name(), caseFD.Name(), tm.order.Name(), sc.orderName)
	}
	req.Set(tm.order, protoreflect.ValueOfEnum(order))
	if caseFD == nil {
		if sc.firstPage != nil {
			req.Clear(tm.start)
			return order, sc.firstPage, nil
		}
		start := req.Mutable(tm.start).Message()
		start.Set(sc.field, protoreflect.ValueOfMessage(cloneMessage(sc.cursor.minimal)))
		return order, nil, nil
	}
	cursor := req.Mutable(tm.start).Message().Mutable(sc.field).Message()
	return order, nil, sc.cursor.fill(cursor, string(tm.start.Name())+"."+string(sc.field.Name())+".")
}

// fill completes a client's positional cursor: unset times become
// 1970-01-01T00:00:00 (hived has no null time), and an element left out
// before a set one is invalid_argument. prefix names the cursor in errors.
func (cs *cursorStart) fill(cursor protoreflect.Message, prefix string) error {
	if !cs.tuple {
		return nil
	}
	for _, fd := range cs.times {
		if !cursor.Has(fd) {
			cursor.Set(fd, protoreflect.ValueOfMessage(cursor.NewField(fd).Message()))
		}
	}
	return checkPositional(cursor, prefix, nil)
}

// checkPositional rejects a positional message (a TUPLE) with an element
// left out before a set one: the codec would send null there, which hived
// cannot read. skip, when not nil, is an element hivegate fills afterwards.
func checkPositional(m protoreflect.Message, prefix string, skip protoreflect.FieldDescriptor) error {
	fields := sortedFields(m.Descriptor())
	last := -1
	for i, fd := range fields {
		if written(m, fd) || fd == skip {
			last = i
		}
	}
	for _, fd := range fields[:max(last, 0)] {
		if !written(m, fd) && fd != skip {
			return invalidArgument("%s%s: must be set when %s is set (the params are positional)",
				prefix, fd.Name(), fields[last].Name())
		}
	}
	return nil
}

// written reports whether the codec writes field fd of m: set fields with
// presence, enums other than their unnamed _UNSPECIFIED zero, and every other
// field without presence.
func written(m protoreflect.Message, fd protoreflect.FieldDescriptor) bool {
	switch {
	case fd.HasPresence():
		return m.Has(fd)
	case fd.IsList() || fd.IsMap():
		return true
	case fd.Kind() == protoreflect.EnumKind:
		if n := m.Get(fd).Enum(); n == 0 {
			zero := fd.Enum().Values().ByNumber(0)
			if zero == nil {
				return false
			}
			_, named := transcode.EnumName(zero)
			return named
		}
		return true
	}
	return true
}

// sortedFields returns md's fields in field-number order, the order of a
// positional message's elements.
func sortedFields(md protoreflect.MessageDescriptor) []protoreflect.FieldDescriptor {
	fields := md.Fields()
	out := make([]protoreflect.FieldDescriptor, fields.Len())
	for i := range out {
		out[i] = fields.Get(i)
	}
	slices.SortFunc(out, func(a, b protoreflect.FieldDescriptor) int { return int(a.Number()) - int(b.Number()) })
	return out
}

// spliceMember adds "key": value to the JSON object obj.
func spliceMember(obj json.RawMessage, key string, value json.RawMessage) json.RawMessage {
	out := make([]byte, 0, len(obj)+len(key)+len(value)+4)
	out = append(out, obj[:len(obj)-1]...)
	if len(obj) > 2 {
		out = append(out, ',')
	}
	keyJSON, _ := json.Marshal(key)
	out = append(out, keyJSON...)
	out = append(out, ':')
	out = append(out, value...)
	return append(out, '}')
}

// cloneMessage copies a plan's shared message before it goes into a
// request, which belongs to the caller and may be modified.
func cloneMessage(m protoreflect.Message) protoreflect.Message {
	return proto.Clone(m.Interface()).ProtoReflect()
}

// cloneValue copies a shared default value of field fd if it is a message.
func cloneValue(v protoreflect.Value, fd protoreflect.FieldDescriptor) protoreflect.Value {
	if fd.Kind() == protoreflect.MessageKind && !fd.IsList() && !fd.IsMap() {
		return protoreflect.ValueOfMessage(cloneMessage(v.Message()))
	}
	return v
}
