package server

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A request message that does not decode is the client's mistake, and the
// client reads the error: it must say what was wrong in the request's
// terms (the field, what it takes, what came), never in Go's (protojson's
// errors name the Go type decoded into). protojson reports its errors as
// text only, in a few stable shapes; requestError recognises them and
// describes the field from the message's descriptor.

// protojsonInvalid matches protojson's "invalid value for <kind> field
// <name>: <value>" and "unknown field <name>", with the position.
var (
	protojsonPos     = regexp.MustCompile(`\(line (\d+):(\d+)\): `)
	protojsonInvalid = regexp.MustCompile(`invalid value for (?:\S+ )?field (\w+): (.*)$`)
	protojsonUnknown = regexp.MustCompile(`unknown field "?([^"\s]+)"?`)
)

// requestError turns an error of decoding data into m (JSON when isJSON,
// else binary) into one in the request's terms.
func requestError(m proto.Message, data []byte, isJSON bool, err error) error {
	if !isJSON {
		return fmt.Errorf("the request is not a valid %s in the protobuf binary encoding", m.ProtoReflect().Descriptor().FullName())
	}
	msg := err.Error()
	at := ""
	if p := protojsonPos.FindStringSubmatch(msg); p != nil {
		at = fmt.Sprintf(" (line %s, column %s)", p[1], p[2])
	}
	if v := protojsonInvalid.FindStringSubmatch(msg); v != nil {
		name, got := v[1], v[2]
		fd := findField(m.ProtoReflect().Descriptor(), name, map[protoreflect.FullName]bool{})
		if fd == nil {
			return fmt.Errorf("%s%s: invalid value %s", name, at, got)
		}
		return fmt.Errorf("%s%s: want %s, got %s", fd.JSONName(), at, describeField(fd), got)
	}
	if v := protojsonUnknown.FindStringSubmatch(msg); v != nil {
		return fmt.Errorf("%s%s: no such field in %s", v[1], at, m.ProtoReflect().Descriptor().FullName())
	}
	if !json.Valid(data) {
		return fmt.Errorf("the request body is not valid JSON%s", at)
	}
	return fmt.Errorf("the request body is not a valid %s in JSON%s", m.ProtoReflect().Descriptor().FullName(), at)
}

// findField finds the field named name (its proto or JSON name) in md or
// the messages under it, nearest first.
func findField(md protoreflect.MessageDescriptor, name string, seen map[protoreflect.FullName]bool) protoreflect.FieldDescriptor {
	if seen[md.FullName()] {
		return nil
	}
	seen[md.FullName()] = true
	fields := md.Fields()
	if fd := fields.ByName(protoreflect.Name(name)); fd != nil {
		return fd
	}
	if fd := fields.ByJSONName(name); fd != nil {
		return fd
	}
	for i := range fields.Len() {
		if sub := fields.Get(i).Message(); sub != nil {
			if fd := findField(sub, name, seen); fd != nil {
				return fd
			}
		}
	}
	return nil
}

// describeField says what a field takes, in protobuf JSON's terms.
func describeField(fd protoreflect.FieldDescriptor) string {
	var what string
	switch fd.Kind() {
	case protoreflect.BoolKind:
		what = "true or false"
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		what = "an integer from -2147483648 to 2147483647"
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		what = "an integer from 0 to 4294967295"
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		what = "a 64-bit integer (a number or a string of digits)"
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		what = "an unsigned 64-bit integer (a number or a string of digits)"
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		what = "a number"
	case protoreflect.StringKind:
		what = "a string"
	case protoreflect.BytesKind:
		what = "base64-encoded bytes"
	case protoreflect.EnumKind:
		vals := fd.Enum().Values()
		names := make([]string, 0, vals.Len())
		for i := range vals.Len() {
			names = append(names, string(vals.Get(i).Name()))
		}
		what = "one of " + strings.Join(names, ", ")
	case protoreflect.MessageKind, protoreflect.GroupKind:
		switch fd.Message().FullName() {
		case "google.protobuf.Timestamp":
			what = "an RFC 3339 time such as \"2016-03-24T16:05:00Z\""
		case "google.protobuf.Value":
			what = "a JSON value"
		default:
			what = "an object (" + string(fd.Message().Name()) + ")"
		}
	}
	if fd.IsList() {
		return "a list of " + what
	}
	return what
}
