package server

import (
	"errors"
	"fmt"
	"sync/atomic"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Codec names, as connect registers them.
const (
	codecProto           = "proto"
	codecJSON            = "json"
	codecJSONCharsetUTF8 = "json; charset=utf-8"
)

// encodedSlot indexes cachedMessage.encoded: one slot per wire encoding.
type encodedSlot int

const (
	slotBinary encodedSlot = iota
	slotJSON
	numSlots
)

// cachingCodec is connect's protobuf codec (binary or JSON, with connect's
// own options) plus one thing: a typed response served from the cache
// carries its cachedMessage, and the encoded bytes are kept there per
// encoding, so a cached 1000-account page is encoded once, not on every
// hit (re-encoding was 93% of a cached Connect JSON call). The bytes are
// handed to connect through MarshalAppend, which copies them into connect's
// pooled buffer: connect pools what Marshal returns, so a shared slice must
// never be returned from Marshal.
type cachingCodec struct {
	name string
	slot encodedSlot
}

// cachingCodecs returns the handler options that install the codecs.
func cachingCodecs() []connect.HandlerOption {
	return []connect.HandlerOption{
		connect.WithCodec(cachingCodec{name: codecProto, slot: slotBinary}),
		connect.WithCodec(cachingCodec{name: codecJSON, slot: slotJSON}),
		connect.WithCodec(cachingCodec{name: codecJSONCharsetUTF8, slot: slotJSON}),
	}
}

// Name implements connect.Codec.
func (c cachingCodec) Name() string { return c.name }

// Marshal implements connect.Codec; it always returns a fresh slice.
func (c cachingCodec) Marshal(msg any) ([]byte, error) { return c.MarshalAppend(nil, msg) }

// MarshalAppend appends msg's encoding to dst, from the cache entry's
// encoded bytes when msg is a cached typed response.
func (c cachingCodec) MarshalAppend(dst []byte, msg any) ([]byte, error) {
	if b, ok := msg.(*anyMessage); ok && b.cached != nil {
		enc, err := b.cached.encode(c.slot, func() ([]byte, error) { return c.encode(nil, b.Message) })
		if err != nil {
			return nil, err
		}
		return append(dst, enc...), nil
	}
	m, ok := msg.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("%T is not a protobuf message", msg)
	}
	return c.encode(dst, m)
}

func (c cachingCodec) encode(dst []byte, m proto.Message) ([]byte, error) {
	if c.slot == slotBinary {
		return proto.MarshalOptions{}.MarshalAppend(dst, m)
	}
	return protojson.MarshalOptions{}.MarshalAppend(dst, m)
}

// Unmarshal implements connect.Codec as connect's own codecs do, with
// errors in the request's terms (codec_errors.go).
func (c cachingCodec) Unmarshal(data []byte, msg any) error {
	m, ok := msg.(proto.Message)
	if !ok {
		return fmt.Errorf("%T is not a protobuf message", msg)
	}
	if c.slot == slotBinary {
		if err := proto.Unmarshal(data, m); err != nil {
			return requestError(m, data, false, err)
		}
		return nil
	}
	if len(data) == 0 {
		return errors.New("the request body is empty: want a JSON object")
	}
	// Strict first, so that an enum value the schema does not have is an
	// error rather than the zero value; then, for a field this schema does
	// not know (a newer client's), as connect's codec does: ignored.
	err := protojson.Unmarshal(data, m)
	if err != nil && protojsonUnknown.MatchString(err.Error()) {
		proto.Reset(m)
		err = protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(data, m)
	}
	if err != nil {
		return requestError(m, data, true, err)
	}
	return nil
}

// encode returns the message's encoding in slot, computing and keeping it
// on first use. Two concurrent first uses may both encode; the bytes are
// the same and either is kept. Kept bytes are charged to the cache entry
// the message is attached to; when the entry refuses them (it left the
// cache, or has no room), they are served and not kept.
func (a *cachedMessage) encode(slot encodedSlot, enc func() ([]byte, error)) ([]byte, error) {
	if p := a.encoded[slot].Load(); p != nil {
		return *p, nil
	}
	b, err := enc()
	if err != nil {
		return nil, err
	}
	if a.encoded[slot].CompareAndSwap(nil, &b) && a.grow != nil && !a.grow(cap(b)+encodedOverhead) {
		a.encoded[slot].CompareAndSwap(&b, nil)
	}
	return b, nil
}

// encodedOverhead is what a kept encoding costs beside its bytes: the
// slice header allocated for the atomic pointer.
const encodedOverhead = 32

// encodedArray is the per-encoding cache of an cachedMessage.
type encodedArray = [numSlots]atomic.Pointer[[]byte]
