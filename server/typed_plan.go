package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	hivegatev1 "github.com/hivegate/hivegate/gen/hivegate/v1"
	"github.com/hivegate/hivegate/server/transcode"
)

// typedMethod is everything the typed front end knows about one RPC. It is
// derived once, at startup, from the RPC's descriptors and the options in
// proto/hivegate/v1/options.proto; nothing in it is written per method. It
// is read-only afterwards.
type typedMethod struct {
	*transcode.Method

	// limit is the page-size field (nil when the method has no limit_max),
	// reached from the request through limitPath (a field of a nested
	// message: condenser_api's discussion query); limitName names it in
	// errors; limitMax is its largest accepted value.
	limit     protoreflect.FieldDescriptor
	limitPath []protoreflect.FieldDescriptor
	limitName string
	limitMax  uint64
	// countsDown are the integer fields marked (hivegate.v1.counts_down).
	countsDown []protoreflect.FieldDescriptor
	// defaults are the fields with a (hivegate.v1.json_default).
	defaults []fieldDefault
	// tuple is set when the request is written as positional params.
	tuple bool
	// required are the request's singular message fields that the schema
	// does not declare `optional` and hivegate does not fill (planRequired).
	required []protoreflect.FieldDescriptor

	// order is the request's `order` enum field and start its `start`
	// message field; either may be nil.
	order protoreflect.FieldDescriptor
	start protoreflect.FieldDescriptor
	// startKey is start's JSON key, and startIndex its position in
	// positional params, for splicing a first_page value.
	startKey   string
	startIndex int
	// startOneof is the oneof of start's message; nil when start is the
	// cursor itself (list_owner_histories).
	startOneof protoreflect.OneofDescriptor
	// cases maps each order value to its start case.
	cases map[protoreflect.EnumNumber]*startCase
	// byCase maps a start case field number to its order value.
	byCase map[protoreflect.FieldNumber]protoreflect.EnumNumber
	// onlyOrder is the order used when neither order nor start is set: the
	// enum's single non-zero value, or 0 when it has several.
	onlyOrder protoreflect.EnumNumber
	// plainStart is the minimal start of a start without a oneof.
	plainStart *cursorStart

	// items is the response's repeated item field, next its next_start
	// field; both nil when the response is not a page.
	items protoreflect.FieldDescriptor
	next  protoreflect.FieldDescriptor
	// nextPlain builds next_start when it is not a oneof; nextCases, keyed
	// by order value, when it is.
	nextPlain *cursorPlan
	nextCases map[protoreflect.EnumNumber]*cursorPlan

	// limitDefault is the node's page size for an unset limit (0: none,
	// an unset limit is limitMax). inclusive is set when the node's start
	// names the page's first item; skipReq then leads from the request to
	// its skip count, and skipNext is next_start's (typed_page.go).
	limitDefault uint64
	inclusive    bool
	skipReq      []protoreflect.FieldDescriptor
	skipNext     protoreflect.FieldDescriptor
}

// fieldDefault is a field's (hivegate.v1.json_default), decoded once.
type fieldDefault struct {
	fd    protoreflect.FieldDescriptor
	value protoreflect.Value // read-only: requests get a copy of a message value
}

// startCase is one case of a request's start oneof.
type startCase struct {
	order     protoreflect.EnumNumber
	orderName string // the enum value's name, for error messages
	field     protoreflect.FieldDescriptor
	// firstPage is the (hivegate.v1.first_page) JSON sent for an unset
	// start; nil when the minimal start is sent instead.
	firstPage json.RawMessage
	cursor    *cursorStart
}

// cursorStart describes a start cursor message: its minimal value (the
// first page) and its time fields, which are filled with the epoch when a
// client leaves them unset.
type cursorStart struct {
	// minimal is the cursor of the first page: every field at its zero
	// value and every time at 1970-01-01T00:00:00. Read-only: requests get
	// a copy.
	minimal protoreflect.Message
	// times are the cursor's google.protobuf.Timestamp fields when the
	// cursor is a tuple (in an object an unset time is simply left out).
	times []protoreflect.FieldDescriptor
	tuple bool
}

// planMethods builds the plan of every typed method. A schema whose options
// are inconsistent (an order without a start case, a cursor field without
// item_field, a path that does not resolve) is an error: it is a bug in
// proto/, caught at startup and by the tests.
func planMethods(reg *transcode.Registry) ([]*typedMethod, error) {
	var out []*typedMethod
	for _, m := range reg.Methods() {
		tm, err := planMethod(m)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Desc.FullName(), err)
		}
		out = append(out, tm)
	}
	return out, nil
}

func planMethod(m *transcode.Method) (*typedMethod, error) {
	tm := &typedMethod{Method: m}
	req := m.Request.Descriptor()
	tm.tuple = proto.GetExtension(req.Options(), hivegatev1.E_JsonShape).(hivegatev1.JsonShape) == hivegatev1.JsonShape_JSON_SHAPE_TUPLE
	if err := tm.planLimit(); err != nil {
		return nil, err
	}
	fields := req.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if proto.GetExtension(fd.Options(), hivegatev1.E_CountsDown).(bool) {
			if !isInteger(fd) || tm.limit == nil {
				return nil, fmt.Errorf("field %s: counts_down needs an integer field and a limit", fd.Name())
			}
			tm.countsDown = append(tm.countsDown, fd)
		}
		if def := proto.GetExtension(fd.Options(), hivegatev1.E_JsonDefault).(string); def != "" {
			tmp := m.Request.New()
			if _, err := transcode.UnmarshalField([]byte(def), tmp.Interface(), fd); err != nil {
				return nil, fmt.Errorf("field %s: json_default %s: %w", fd.Name(), def, err)
			}
			tm.defaults = append(tm.defaults, fieldDefault{fd: fd, value: tmp.Get(fd)})
		}
	}
	if err := tm.planStart(); err != nil {
		return nil, err
	}
	tm.planRequired()
	if err := tm.planNext(); err != nil {
		return nil, err
	}
	if err := tm.planPage(); err != nil {
		return nil, err
	}
	return tm, nil
}

// planLimit reads (hivegate.v1.limit_max) and (hivegate.v1.limit_field).
func (tm *typedMethod) planLimit() error {
	opts := tm.Desc.Options()
	max := proto.GetExtension(opts, hivegatev1.E_LimitMax).(uint32)
	if max == 0 {
		return nil
	}
	name := proto.GetExtension(opts, hivegatev1.E_LimitField).(string)
	if name == "" {
		name = "limit"
	}
	path, err := resolvePath(tm.Request.Descriptor(), name)
	if err != nil {
		return fmt.Errorf("limit_max: limit field %q: %w", name, err)
	}
	fd := path[len(path)-1]
	if !isInteger(fd) {
		return fmt.Errorf("limit_max: request has no integer field %q", name)
	}
	tm.limit, tm.limitPath, tm.limitName, tm.limitMax = fd, path, name, uint64(max)
	return nil
}

// planStart finds the request's order and start fields and pairs every
// order value with its start case by hived name ("by_name").
func (tm *typedMethod) planStart() error {
	fields := tm.Request.Descriptor().Fields()
	if fd := fields.ByName("order"); fd != nil && fd.Kind() == protoreflect.EnumKind {
		tm.order = fd
	}
	fd := fields.ByName("start")
	if fd == nil || fd.Kind() != protoreflect.MessageKind {
		// Without a start message an order is a plain parameter
		// (database_api.find_withdraw_vesting_routes).
		tm.order = nil
		return nil
	}
	tm.start = fd
	tm.startIndex = slices.Index(sortedFields(tm.Request.Descriptor()), fd)
	tm.startKey = fd.TextName()
	if k := proto.GetExtension(fd.Options(), hivegatev1.E_JsonKey).(string); k != "" {
		tm.startKey = k
	}
	sm := fd.Message()
	if sm.Oneofs().Len() == 0 || sm.Oneofs().Get(0).IsSynthetic() {
		if tm.order != nil {
			return fmt.Errorf("start %s has no oneof, but the request has an order", sm.FullName())
		}
		tm.plainStart = planCursorStart(tm.Request.New().NewField(tm.start).Message())
		return nil
	}
	if tm.order == nil {
		return fmt.Errorf("start %s has a oneof, but the request has no order", sm.FullName())
	}
	tm.startOneof = sm.Oneofs().Get(0)
	tm.cases = map[protoreflect.EnumNumber]*startCase{}
	tm.byCase = map[protoreflect.FieldNumber]protoreflect.EnumNumber{}
	caseFields := tm.startOneof.Fields()
	values := tm.order.Enum().Values()
	var nonZero []protoreflect.EnumNumber
	for i := range values.Len() {
		v := values.Get(i)
		name, ok := transcode.EnumName(v)
		if !ok {
			continue
		}
		nonZero = append(nonZero, v.Number())
		cf := caseFields.ByName(protoreflect.Name(name))
		if cf == nil {
			return fmt.Errorf("order %s (%q) has no start case named %s", v.Name(), name, name)
		}
		sc := &startCase{order: v.Number(), orderName: string(v.Name()), field: cf}
		if fp := proto.GetExtension(cf.Options(), hivegatev1.E_FirstPage).(string); fp != "" {
			// The value must be a cursor of the case: decode it as one.
			tmp := tm.Request.New().NewField(tm.start).Message()
			if _, err := transcode.UnmarshalField([]byte(fp), tmp.Interface(), cf); err != nil {
				return fmt.Errorf("start case %s: first_page %s: %w", cf.Name(), fp, err)
			}
			var buf bytes.Buffer
			if err := json.Compact(&buf, []byte(fp)); err != nil {
				return fmt.Errorf("start case %s: first_page %s: %w", cf.Name(), fp, err)
			}
			sc.firstPage = buf.Bytes()
		}
		sc.cursor = planCursorStart(tm.Request.New().NewField(tm.start).Message().NewField(cf).Message())
		tm.cases[v.Number()] = sc
		tm.byCase[cf.Number()] = v.Number()
	}
	if len(tm.byCase) != caseFields.Len() {
		return fmt.Errorf("start %s has a case that no order selects", sm.FullName())
	}
	if len(nonZero) == 1 {
		tm.onlyOrder = nonZero[0]
	}
	return nil
}

// planRequired finds the request fields a client must set. The codec
// leaves an unset message field out of the params: a named member the node
// then reads as absent, or a positional element it never gets (hived's
// condenser_api counts its arguments). Such a field is required unless the
// schema says the node has a default for it, by declaring it proto3
// `optional` (transaction_status_api's expiration: hived's fc::optional),
// or hivegate fills it: a json_default, or the paging start (the first
// page). Scalars, lists and enums are not required: the codec writes every
// scalar and list, and an enum's _UNSPECIFIED zero means the node's default.
func (tm *typedMethod) planRequired() {
	for _, fd := range sortedFields(tm.Request.Descriptor()) {
		if fd.Kind() != protoreflect.MessageKind || fd.IsList() || fd.IsMap() ||
			fd.ContainingOneof() != nil || fd == tm.start ||
			proto.GetExtension(fd.Options(), hivegatev1.E_JsonDefault).(string) != "" {
			continue
		}
		tm.required = append(tm.required, fd)
	}
}

// planCursorStart describes a start cursor; empty is a new, empty message of
// the cursor's type, which becomes the minimal start.
func planCursorStart(empty protoreflect.Message) *cursorStart {
	md := empty.Descriptor()
	cs := &cursorStart{
		minimal: empty,
		tuple:   proto.GetExtension(md.Options(), hivegatev1.E_JsonShape).(hivegatev1.JsonShape) == hivegatev1.JsonShape_JSON_SHAPE_TUPLE,
	}
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if isTimestamp(fd) {
			// A new Timestamp is 0 seconds: 1970-01-01T00:00:00.
			cs.minimal.Set(fd, protoreflect.ValueOfMessage(cs.minimal.NewField(fd).Message()))
			if cs.tuple {
				cs.times = append(cs.times, fd)
			}
		}
	}
	return cs
}

// planNext finds the response's item list and next_start field and plans
// how next_start is built from the items (or from response fields, for
// backends that compute the next cursor themselves).
func (tm *typedMethod) planNext() error {
	resp := tm.Response.Descriptor()
	next := resp.Fields().ByName("next_start")
	if next == nil {
		return nil
	}
	if next.Kind() != protoreflect.MessageKind || next.IsList() {
		return fmt.Errorf("next_start is not a message")
	}
	tm.items = itemList(resp)
	tm.next = next
	nm := next.Message()
	if nm.Oneofs().Len() == 0 || nm.Oneofs().Get(0).IsSynthetic() {
		cp, err := planCursor(nm, nil, tm.items, resp, tm.Request.Descriptor())
		tm.nextPlain = cp
		return err
	}
	if tm.cases == nil {
		return fmt.Errorf("next_start %s has a oneof, but the request has no order", nm.FullName())
	}
	tm.nextCases = map[protoreflect.EnumNumber]*cursorPlan{}
	for order, sc := range tm.cases {
		cf := nm.Oneofs().Get(0).Fields().ByName(sc.field.Name())
		if cf == nil {
			return fmt.Errorf("next_start %s has no case %s", nm.FullName(), sc.field.Name())
		}
		cp, err := planCursor(nm, cf, tm.items, resp, tm.Request.Descriptor())
		if err != nil {
			return err
		}
		tm.nextCases[order] = cp
	}
	return nil
}

// itemList returns a page's item list: the response's only repeated message
// field, or else its only repeated scalar field (condenser_api's
// lookup_accounts lists names). It is nil when there is none or when the
// choice is ambiguous; a cursor that needs items then fails to plan.
func itemList(resp protoreflect.MessageDescriptor) protoreflect.FieldDescriptor {
	var msgs, scalars []protoreflect.FieldDescriptor
	fields := resp.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		switch {
		case !fd.IsList():
		case fd.Kind() == protoreflect.MessageKind:
			msgs = append(msgs, fd)
		default:
			scalars = append(scalars, fd)
		}
	}
	switch {
	case len(msgs) == 1:
		return msgs[0]
	case len(msgs) == 0 && len(scalars) == 1:
		return scalars[0]
	}
	return nil
}

// isTimestamp reports a singular google.protobuf.Timestamp field.
func isTimestamp(fd protoreflect.FieldDescriptor) bool {
	return fd.Kind() == protoreflect.MessageKind && !fd.IsList() &&
		fd.Message().FullName() == "google.protobuf.Timestamp"
}

// isInteger reports an integer field of any width or signedness.
func isInteger(fd protoreflect.FieldDescriptor) bool {
	switch fd.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind,
		protoreflect.Uint32Kind, protoreflect.Fixed32Kind,
		protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return true
	}
	return false
}
