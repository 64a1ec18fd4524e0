package server

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	hivegatev1 "github.com/hivegate/hivegate/gen/hivegate/v1"
)

// cursorPlan builds a response's next_start from the page's items: every
// field of the cursor message names, with (hivegate.v1.item_field), where in
// an item its value comes from.
type cursorPlan struct {
	// oneofCase is the next_start case to set; nil when next_start is the
	// cursor itself.
	oneofCase protoreflect.FieldDescriptor
	fields    []cursorField
}

// cursorField is one field of a cursor and its source in the item.
type cursorField struct {
	fd protoreflect.FieldDescriptor
	// paths lead from the item to the source field; several paths are
	// ANDed (bool fields only). With fromResponse the single path leads from
	// the response instead; with self the value is the item itself (a list
	// of scalars) and paths is empty.
	paths        [][]protoreflect.FieldDescriptor
	fromResponse bool
	self         bool
	// advance, when set, is the request field whose value plus the number
	// of items on the page is the field's value (advance_field).
	advance []protoreflect.FieldDescriptor
	// stop, when set, is the request field whose value ends the paging:
	// the page is the last one when the cursor value reaches it.
	stop []protoreflect.FieldDescriptor
	// first takes the page's first item rather than its last.
	first bool
	// offset is added to an integer value.
	offset int64
	// end, when hasEnd, is the item value that marks the last page.
	end    int64
	hasEnd bool
}

// planCursor plans next_start message nm (with case cf, or nil when nm is
// the cursor itself) built from the response resp: from the items of list
// items (nil when the response has no single item list) or from response
// fields. req is the request, for stop_at_field.
func planCursor(nm protoreflect.MessageDescriptor, cf protoreflect.FieldDescriptor, items protoreflect.FieldDescriptor,
	resp, req protoreflect.MessageDescriptor) (*cursorPlan, error) {
	cursor := nm
	if cf != nil {
		cursor = cf.Message()
	}
	cp := &cursorPlan{oneofCase: cf}
	fields := cursor.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		opts := fd.Options()
		if proto.GetExtension(opts, hivegatev1.E_Skip).(bool) {
			continue // set by finishPage, not from the items
		}
		spec := proto.GetExtension(opts, hivegatev1.E_ItemField).(string)
		respSpec := proto.GetExtension(opts, hivegatev1.E_ResponseField).(string)
		advSpec := proto.GetExtension(opts, hivegatev1.E_AdvanceField).(string)
		if advSpec != "" {
			path, err := resolvePath(req, advSpec)
			if err != nil || spec != "" || respSpec != "" || !isInteger(fd) || !isInteger(path[len(path)-1]) {
				return nil, fmt.Errorf("cursor field %s: advance_field %q needs integer fields and no item_field or response_field (%v)", fd.FullName(), advSpec, err)
			}
			cp.fields = append(cp.fields, cursorField{fd: fd, advance: path})
			continue
		}
		if (spec == "") == (respSpec == "") {
			return nil, fmt.Errorf("cursor field %s needs exactly one of (hivegate.v1.item_field), (hivegate.v1.response_field) and (hivegate.v1.advance_field)", fd.FullName())
		}
		if spec == "-" {
			// Not carried by the items: left unset, which needs presence.
			if !fd.HasPresence() {
				return nil, fmt.Errorf("cursor field %s: item_field \"-\" needs a field with presence", fd.FullName())
			}
			continue
		}
		f := cursorField{
			fd:     fd,
			first:  proto.GetExtension(opts, hivegatev1.E_ItemFirst).(bool),
			offset: proto.GetExtension(opts, hivegatev1.E_ItemOffset).(int64),
		}
		if proto.HasExtension(opts, hivegatev1.E_ItemEnd) {
			f.end, f.hasEnd = proto.GetExtension(opts, hivegatev1.E_ItemEnd).(int64), true
		}
		if stop := proto.GetExtension(opts, hivegatev1.E_StopAtField).(string); stop != "" {
			path, err := resolvePath(req, stop)
			if err != nil || !isInteger(fd) || !isInteger(path[len(path)-1]) {
				return nil, fmt.Errorf("cursor field %s: stop_at_field %q needs integer fields (%v)", fd.FullName(), stop, err)
			}
			f.stop = path
		}
		if err := f.resolve(spec, respSpec, items, resp); err != nil {
			return nil, fmt.Errorf("cursor field %s: %w", fd.FullName(), err)
		}
		if err := f.check(); err != nil {
			return nil, fmt.Errorf("cursor field %s: item_field %q: %w", fd.FullName(), spec, err)
		}
		cp.fields = append(cp.fields, f)
	}
	return cp, nil
}

// resolve finds the source of a cursor field: a response field (respSpec),
// the item itself (spec "."), or item fields (spec, paths joined by "&&").
func (f *cursorField) resolve(spec, respSpec string, items protoreflect.FieldDescriptor, resp protoreflect.MessageDescriptor) error {
	if respSpec != "" {
		path, err := resolvePath(resp, respSpec)
		if err != nil {
			return fmt.Errorf("response_field %q: %w", respSpec, err)
		}
		f.fromResponse, f.paths = true, [][]protoreflect.FieldDescriptor{path}
		return nil
	}
	if items == nil {
		return fmt.Errorf("item_field %q: the response has no single repeated item field", spec)
	}
	if spec == "." {
		if items.Kind() == protoreflect.MessageKind {
			return fmt.Errorf(`item_field ".": the items (%s) are messages, not scalars`, items.Name())
		}
		f.self = true
		return nil
	}
	if items.Kind() != protoreflect.MessageKind {
		return fmt.Errorf("item_field %q: the items (%s) are scalars: use \".\"", spec, items.Name())
	}
	for _, p := range strings.Split(spec, "&&") {
		path, err := resolvePath(items.Message(), strings.TrimSpace(p))
		if err != nil {
			return fmt.Errorf("item_field %q: %w", spec, err)
		}
		f.paths = append(f.paths, path)
	}
	return nil
}

// resolvePath resolves a dot path of field names in md. Every step but the
// last must be a singular message field; the last must be singular.
func resolvePath(md protoreflect.MessageDescriptor, path string) ([]protoreflect.FieldDescriptor, error) {
	var out []protoreflect.FieldDescriptor
	steps := strings.Split(path, ".")
	for i, name := range steps {
		fd := md.Fields().ByName(protoreflect.Name(name))
		if fd == nil {
			return nil, fmt.Errorf("%s has no field %q", md.FullName(), name)
		}
		if fd.IsList() || fd.IsMap() {
			return nil, fmt.Errorf("%s.%s is repeated", md.FullName(), name)
		}
		out = append(out, fd)
		if i < len(steps)-1 {
			if fd.Kind() != protoreflect.MessageKind {
				return nil, fmt.Errorf("%s.%s is not a message", md.FullName(), name)
			}
			md = fd.Message()
		}
	}
	return out, nil
}

// check verifies that the sources can fill the field.
func (f *cursorField) check() error {
	if len(f.paths) > 1 {
		if f.fd.Kind() != protoreflect.BoolKind {
			return fmt.Errorf("&& needs a bool field")
		}
	}
	if (f.offset != 0 || f.hasEnd) && !isInteger(f.fd) {
		return fmt.Errorf("item_offset and item_end need an integer field")
	}
	if f.self && f.fd.Kind() == protoreflect.MessageKind {
		return fmt.Errorf("an item that is a scalar cannot fill a message field")
	}
	for _, p := range f.paths {
		src := p[len(p)-1]
		var ok bool
		switch {
		case len(f.paths) > 1:
			ok = src.Kind() == protoreflect.BoolKind
		case isInteger(f.fd):
			ok = isInteger(src)
		case f.fd.Kind() == protoreflect.MessageKind:
			ok = src.Kind() == protoreflect.MessageKind && src.Message().FullName() == f.fd.Message().FullName()
		case f.fd.Kind() == protoreflect.EnumKind:
			ok = src.Kind() == protoreflect.EnumKind && src.Enum().FullName() == f.fd.Enum().FullName()
		default:
			ok = src.Kind() == f.fd.Kind()
		}
		if !ok {
			return fmt.Errorf("%s (%s) cannot fill a %s field", src.FullName(), src.Kind(), f.fd.Kind())
		}
	}
	return nil
}

// build sets next_start on resp from its items (or response fields); it
// leaves next_start unset when the page is empty, when a field's item_end
// says the page is the last, or when a field reached its stop_at_field in
// the request req. last is the item next_start is built from (-1: the
// page's last item).
func (cp *cursorPlan) build(resp protoreflect.Message, items, next protoreflect.FieldDescriptor, req protoreflect.Message, last int) {
	var list protoreflect.List
	n := 0
	if items != nil {
		list = resp.Get(items).List()
		n = list.Len()
	}
	if n == 0 && cp.needsItems() {
		return
	}
	if last < 0 {
		last = n - 1
	}
	nx := resp.NewField(next).Message()
	cur := nx
	if cp.oneofCase != nil {
		cur = nx.NewField(cp.oneofCase).Message()
	}
	if !cp.fill(cur, resp, list, last, req) {
		return // the last page
	}
	if cp.oneofCase != nil {
		nx.Set(cp.oneofCase, protoreflect.ValueOfMessage(cur))
	}
	resp.Set(next, protoreflect.ValueOfMessage(nx))
}

// fill sets the fields of cursor cur from item last of list (the page's
// items 0..last) or from the response; false means the page is the last.
func (cp *cursorPlan) fill(cur, resp protoreflect.Message, list protoreflect.List, last int, req protoreflect.Message) bool {
	for i := range cp.fields {
		f := &cp.fields[i]
		var v protoreflect.Value
		ok := true
		switch {
		case f.fromResponse:
			v, ok = f.value(resp, cur)
		case f.advance != nil:
			if req == nil {
				return false
			}
			v = fromInt64(asInt64(get(req, f.advance), f.advance[len(f.advance)-1])+int64(last+1), f.fd)
		case f.self:
			v = list.Get(last)
			if f.first {
				v = list.Get(0)
			}
		default:
			item := list.Get(last).Message()
			if f.first {
				item = list.Get(0).Message()
			}
			v, ok = f.value(item, cur)
		}
		if !ok || f.stopped(v, req) {
			return false
		}
		if v.IsValid() {
			cur.Set(f.fd, v)
		}
	}
	return true
}

// sameCursor counts the items up to item last whose cursor equals item
// last's, contiguous from last back: the items a node with an inclusive
// start answers again when sent that cursor.
func (cp *cursorPlan) sameCursor(resp protoreflect.Message, items, next protoreflect.FieldDescriptor, req protoreflect.Message, last int) int {
	list := resp.Get(items).List()
	key := func(i int) proto.Message {
		cur := resp.NewField(next).Message()
		if cp.oneofCase != nil {
			cur = cur.NewField(cp.oneofCase).Message()
		}
		cp.fill(cur, resp, list, i, req)
		for _, f := range cp.fields {
			if proto.GetExtension(f.fd.Options(), hivegatev1.E_NodeIgnores).(bool) {
				cur.Clear(f.fd)
			}
		}
		return cur.Interface()
	}
	want := key(last)
	count := 1
	for j := last - 1; j >= 0 && proto.Equal(key(j), want); j-- {
		count++
	}
	return count
}

// needsItems reports whether a field of the cursor comes from the items.
func (cp *cursorPlan) needsItems() bool {
	for i := range cp.fields {
		if !cp.fields[i].fromResponse {
			return true
		}
	}
	return false
}

// stopped reports whether value v of an integer field with a stop_at_field
// reached the request's value of that field.
func (f *cursorField) stopped(v protoreflect.Value, req protoreflect.Message) bool {
	if f.stop == nil || !v.IsValid() || req == nil {
		return false
	}
	limit := asInt64(get(req, f.stop), f.stop[len(f.stop)-1])
	return asInt64(v, f.fd) >= limit
}

// value computes the field's value from item. ok is false when the item
// marks the last page; an invalid Value leaves the field unset (a message
// source that is unset).
func (f *cursorField) value(item, cur protoreflect.Message) (v protoreflect.Value, ok bool) {
	if len(f.paths) > 1 {
		all := true
		for _, p := range f.paths {
			all = all && get(item, p).Bool()
		}
		return protoreflect.ValueOfBool(all), true
	}
	p := f.paths[0]
	src := p[len(p)-1]
	switch {
	case isInteger(f.fd):
		n := asInt64(get(item, p), src)
		if f.hasEnd && n == f.end {
			return v, false
		}
		return fromInt64(n+f.offset, f.fd), true
	case f.fd.Kind() == protoreflect.MessageKind:
		parent := item
		for _, fd := range p[:len(p)-1] {
			parent = parent.Get(fd).Message()
		}
		if !parent.Has(src) {
			if isTimestamp(f.fd) {
				// hived's never-time, read as an unset Timestamp: in a
				// time order it is the maximum (1969-12-31T23:59:59,
				// time_point_sec::maximum()), where hived sorts the
				// rows that are not scheduled (next_vesting_withdrawal,
				// cashout_time). The cursor carries that position.
				dst := cur.NewField(f.fd).Message()
				dst.Set(dst.Descriptor().Fields().ByName("seconds"), protoreflect.ValueOfInt64(-1))
				return protoreflect.ValueOfMessage(dst), true
			}
			return v, true
		}
		// Copy into a message of the cursor's own type: the cursor must not
		// share a message with the item.
		dst := cur.NewField(f.fd).Message()
		proto.Merge(dst.Interface(), parent.Get(src).Message().Interface())
		return protoreflect.ValueOfMessage(dst), true
	default:
		return get(item, p), true
	}
}

// get follows path from m; unset messages on the way read as empty.
func get(m protoreflect.Message, path []protoreflect.FieldDescriptor) protoreflect.Value {
	for _, fd := range path[:len(path)-1] {
		m = m.Get(fd).Message()
	}
	return m.Get(path[len(path)-1])
}

// asInt64 reads an integer value of field fd as int64 (uint64 values above
// 2^63-1 wrap, which no cursor holds).
func asInt64(v protoreflect.Value, fd protoreflect.FieldDescriptor) int64 {
	switch fd.Kind() {
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return int64(v.Uint())
	default:
		return v.Int()
	}
}

// fromInt64 converts n to a value of integer field fd.
func fromInt64(n int64, fd protoreflect.FieldDescriptor) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(n))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(n))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(n))
	default:
		return protoreflect.ValueOfInt64(n)
	}
}
