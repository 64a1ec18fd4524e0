package server

import (
	"reflect"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// A decoded message kept with a cache entry (cachedMessage) is charged to
// the cache budget (cache_max_capacity) like the entry itself: heapSize
// estimates what it costs the Go heap. Neither the JSON nor the wire size
// (proto.Size) is a guide: measured on hivesim's answers (TestHeapSize,
// runtime.MemStats), the heap per proto.Size byte goes from 3.5
// (GetDynamicGlobalProperties) to 6.5 (a structpb.Value of 1,000
// accounts, JsonRpcService/Call), the heap per JSON byte from 0.95 to 7.7:
// a generated message keeps every field, set or not, in its struct, and a
// structpb.Value is a tree of small allocations. So the estimate walks the
// message: each message's struct (its Go type's size), each string's and
// bytes' data, each list's backing array and each map entry (a long list
// from a sample of its elements: a walk of every account of a 1,000-account
// page cost as much as decoding it, 35 ms; the sampled walk costs 1.3 ms,
// less than proto.Size). The walk came to 0.92 (ListAccounts) to 1.13 (a
// structpb.Value) times the measured heap; heapSlack covers the rest
// (allocator size classes, lists grown by append).
const (
	// heapSlack multiplies the walked sum (in percent): 125 puts the
	// estimate between 1.15 and 1.41 times the measured heap.
	heapSlack = 125
	// oneofWrapper is a set oneof field's wrapper struct (the interface in
	// the message points to it) with its allocation header.
	oneofWrapper = 32
	// mapEntry is what one map entry costs beside its key and value data
	// (the slot with its key and value headers, control bytes, load factor).
	mapEntry = 64
)

// heapSize estimates the bytes m (and everything it points to) costs the
// Go heap.
func heapSize(m protoreflect.Message) int {
	return walkSize(m) * heapSlack / 100
}

// walkSize is heapSize's sum before the slack.
func walkSize(m protoreflect.Message) int {
	n := structSize(m)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			n += oneofWrapper
		}
		switch {
		case fd.IsList():
			l := v.List()
			n += l.Len() * elemSize(fd)
			n += listData(fd, l)
		case fd.IsMap():
			mp := v.Map()
			kd, vd := fd.MapKey(), fd.MapValue()
			mp.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
				n += mapEntry + elemSize(vd) + dataSize(kd, k.Value()) + dataSize(vd, v)
				return true
			})
		default:
			n += dataSize(fd, v)
		}
		return true
	})
	return n
}

// listSample is how many elements of a long list listData walks.
const listSample = 64

// listData is the data the elements of l point to. A list longer than
// listSample is estimated from listSample elements spread over it: the
// walk of a 1,000-account page took as long as decoding it.
func listData(fd protoreflect.FieldDescriptor, l protoreflect.List) int {
	n := l.Len()
	if n <= listSample {
		sum := 0
		for i := range n {
			sum += dataSize(fd, l.Get(i))
		}
		return sum
	}
	sum := 0
	for i := range listSample {
		sum += dataSize(fd, l.Get(i*n/listSample))
	}
	return sum * n / listSample
}

// structSize is the size of m's Go struct (generated messages are
// pointers to structs).
func structSize(m protoreflect.Message) int {
	t := reflect.TypeOf(m.Interface())
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return int(t.Size())
}

// dataSize is what a value of field fd points to beyond its slot: a
// string's or bytes' data, a message.
func dataSize(fd protoreflect.FieldDescriptor, v protoreflect.Value) int {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return len(v.String())
	case protoreflect.BytesKind:
		return len(v.Bytes())
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return walkSize(v.Message())
	}
	return 0
}

// elemSize is the size of one element of a list (or map value) of fd's
// kind in its backing array.
func elemSize(fd protoreflect.FieldDescriptor) int {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return 8 // a pointer
	case protoreflect.StringKind:
		return 16
	case protoreflect.BytesKind:
		return 24
	case protoreflect.BoolKind:
		return 1
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Uint32Kind,
		protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind, protoreflect.EnumKind:
		return 4
	}
	return 8
}
