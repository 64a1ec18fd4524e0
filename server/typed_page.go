package server

import (
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	hivegatev1 "github.com/hivegate/hivegate/gen/hivegate/v1"
)

// The paging contract of every typed RPC with a next_start (proto/README.md,
// "Paging"): next_start is unset on the last page; sent back unchanged it
// answers the next page, with no item repeated and none skipped, whatever
// the node's convention. This file holds what makes a node's convention fit
// that contract:
//
//   - the page size: an unset limit is the node's default (limit_default),
//     or limit_max where the node has none;
//   - "is there more?": a page is the last when the node answered fewer
//     items than hivegate asked for (or, for pages that count down, when it
//     reached entry 0; for cursors the node computes, as the node says);
//   - inclusive starts (start_inclusive): next_start names the page's last
//     item and counts, in its skip field, the items under that same cursor
//     value that pages returned already; the next call asks the node for
//     limit + skip items and drops the first skip;
//   - pages that count down (counts_down): the page size sent never reaches
//     below entry 0, so a client never lowers limit near the oldest entry.

// pageInfo is what one call asks of the node and how its answer is cut.
type pageInfo struct {
	// paged is false for a method without a page size.
	paged bool
	// size is the page size the client gets (limit, or the default).
	size uint64
	// skip is the client's next_start skip: items to drop from the front.
	skip uint64
	// sent is how many items hivegate asks the node for.
	sent uint64
	// sendLimit: the limit field must be sent as `sent` (otherwise the
	// client left it unset and the node's default equals sent).
	sendLimit bool
}

// planPage reads the paging options of a method: limit_default,
// start_inclusive and the skip fields of its request and next_start.
func (tm *typedMethod) planPage() error {
	opts := tm.Desc.Options()
	tm.limitDefault = uint64(proto.GetExtension(opts, hivegatev1.E_LimitDefault).(uint32))
	tm.inclusive = proto.GetExtension(opts, hivegatev1.E_StartInclusive).(bool)
	if tm.limitDefault > tm.limitMax {
		return fmt.Errorf("limit_default %d is above limit_max %d", tm.limitDefault, tm.limitMax)
	}
	req := tm.Request.Descriptor()
	if fd := skipField(req); fd != nil {
		tm.skipReq = []protoreflect.FieldDescriptor{fd}
	} else if tm.start != nil {
		if fd := skipField(tm.start.Message()); fd != nil {
			tm.skipReq = []protoreflect.FieldDescriptor{tm.start, fd}
		}
	}
	if tm.next != nil {
		tm.skipNext = skipField(tm.next.Message())
	}
	switch {
	case !tm.inclusive && (tm.skipReq != nil || tm.skipNext != nil):
		return fmt.Errorf("a skip field needs start_inclusive")
	case tm.inclusive && (tm.skipReq == nil || tm.skipNext == nil || tm.limit == nil):
		return fmt.Errorf("start_inclusive needs a limit and a (hivegate.v1.skip) field in the request (or its start) and in next_start")
	case tm.skipNext != nil && tm.skipReq[len(tm.skipReq)-1].Kind() != tm.skipNext.Kind():
		return fmt.Errorf("the skip fields of the request and next_start differ in type")
	}
	return nil
}

// skipField is md's field marked (hivegate.v1.skip), or nil.
func skipField(md protoreflect.MessageDescriptor) protoreflect.FieldDescriptor {
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if proto.GetExtension(fd.Options(), hivegatev1.E_Skip).(bool) {
			return fd
		}
	}
	return nil
}

// page computes what a request asks of the node. It is a function of the
// request alone, so that the answer can be cut the same way after the call.
func (tm *typedMethod) page(req protoreflect.Message) (pageInfo, error) {
	if tm.limit == nil {
		return pageInfo{}, nil
	}
	pg := pageInfo{paged: true}
	limitSet := has(req, tm.limitPath)
	switch {
	case limitSet:
		limit := asInt64(get(req, tm.limitPath), tm.limit)
		if limit < 1 || uint64(limit) > tm.limitMax {
			return pg, invalidArgument("%s: must be 1..%d, got %d", tm.limitName, tm.limitMax, limit)
		}
		pg.size = uint64(limit)
	case tm.limitDefault > 0:
		pg.size = tm.limitDefault
	default:
		pg.size = tm.limitMax
		pg.sendLimit = true
	}
	if tm.skipReq != nil && has(req, tm.skipReq) {
		pg.skip = uint64(asInt64(get(req, tm.skipReq), tm.skipReq[len(tm.skipReq)-1]))
		if pg.skip >= tm.limitMax {
			return pg, invalidArgument("%s: must be below %d, got %d (more than a page of items share one cursor value)",
				tm.skipReq[len(tm.skipReq)-1].Name(), tm.limitMax, pg.skip)
		}
	}
	pg.sent = min(pg.size+pg.skip, tm.limitMax)
	pg.sendLimit = pg.sendLimit || limitSet || pg.skip > 0
	for _, fd := range tm.countsDown {
		start := int64(-1)
		if req.Has(fd) {
			start = asInt64(req.Get(fd), fd)
		}
		if start < -1 {
			return pg, invalidArgument("%s: must be -1 (the newest entry) or a sequence number, got %d", fd.Name(), start)
		}
		if start >= 0 && pg.sent > uint64(start)+1 {
			// The page would reach below entry 0: ask for entries 0..start.
			pg.sent, pg.sendLimit = uint64(start)+1, true
		}
	}
	return pg, nil
}

// has reports whether the field at path is set in m (every message on the
// way set, and the last field present or, without presence, non-zero).
func has(m protoreflect.Message, path []protoreflect.FieldDescriptor) bool {
	for _, fd := range path[:len(path)-1] {
		if !m.Has(fd) {
			return false
		}
		m = m.Get(fd).Message()
	}
	return m.Has(path[len(path)-1])
}

// sendable returns the message whose params hivegate sends for req: req
// itself, or a copy with the page size it asks the node for and without
// the skip count, which is hivegate's alone.
func (tm *typedMethod) sendable(req protoreflect.Message, pg pageInfo) protoreflect.Message {
	needSkipClear := tm.skipReq != nil && has(req, tm.skipReq)
	needLimit := pg.sendLimit && (!has(req, tm.limitPath) || uint64(asInt64(get(req, tm.limitPath), tm.limit)) != pg.sent)
	if !needSkipClear && !needLimit {
		return req
	}
	out := cloneMessage(req)
	if needSkipClear {
		m := out
		for _, fd := range tm.skipReq[:len(tm.skipReq)-1] {
			m = m.Mutable(fd).Message()
		}
		m.Clear(tm.skipReq[len(tm.skipReq)-1])
	}
	if needLimit {
		m := out
		for _, fd := range tm.limitPath[:len(tm.limitPath)-1] {
			m = m.Mutable(fd).Message()
		}
		m.Set(tm.limit, fromInt64(int64(pg.sent), tm.limit))
	}
	return out
}

// finishPage cuts the node's answer m to the client's page and sets its
// next_start: it drops the skip items already returned and any items beyond
// what was asked, decides whether there is more, and builds the cursor.
func (tm *typedMethod) finishPage(m protoreflect.Message, pg pageInfo, order protoreflect.EnumNumber, req protoreflect.Message) {
	cp := tm.nextPlain
	if cp == nil {
		cp = tm.nextCases[order]
	}
	if cp == nil {
		return
	}
	if !pg.paged || len(tm.countsDown) > 0 || !cp.needsItems() {
		// Counting down (item_end ends it) or a cursor the node computes
		// (response_field, stop_at_field): the plan alone decides.
		cp.build(m, tm.items, tm.next, req, -1)
		return
	}
	list := m.Get(tm.items).List()
	n := uint64(list.Len())
	if n > pg.sent {
		list.Truncate(int(pg.sent))
		n = pg.sent
	}
	more := n >= pg.sent && n > pg.skip
	if more {
		cp.build(m, tm.items, tm.next, req, int(n-1))
		if tm.inclusive && m.Has(tm.next) {
			count := cp.sameCursor(m, tm.items, tm.next, req, int(n-1))
			m.Mutable(tm.next).Message().Set(tm.skipNext, fromInt64(int64(count), tm.skipNext))
		}
	}
	if drop := min(pg.skip, n); drop > 0 {
		kept := m.NewField(tm.items).List()
		for i := int(drop); i < list.Len(); i++ {
			kept.Append(list.Get(i))
		}
		m.Set(tm.items, protoreflect.ValueOfList(kept))
	}
}
