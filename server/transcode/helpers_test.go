package transcode_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// protoJSONValue renders m with protojson and parses it back into a generic
// value, so that messages can be compared with expectations written as
// protojson text regardless of protojson's unstable whitespace.
func protoJSONValue(t *testing.T, m proto.Message) any {
	t.Helper()
	b, err := protojson.Marshal(m)
	if err != nil {
		t.Fatalf("protojson.Marshal: %v", err)
	}
	return jsonValue(t, b)
}

// jsonValue parses JSON text into a generic value.
func jsonValue(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("parse %s: %v", b, err)
	}
	return v
}

// assertProto checks that m equals the message described by the protojson
// text want.
func assertProto(t *testing.T, m proto.Message, want string) {
	t.Helper()
	got := protoJSONValue(t, m)
	if !reflect.DeepEqual(got, jsonValue(t, []byte(want))) {
		b, _ := protojson.Marshal(m)
		t.Errorf("decoded message:\n got %s\nwant %s", b, want)
	}
}

// fromProtoJSON fills m from protojson text.
func fromProtoJSON(t *testing.T, m proto.Message, s string) {
	t.Helper()
	if err := protojson.Unmarshal([]byte(s), m); err != nil {
		t.Fatalf("protojson.Unmarshal %s: %v", s, err)
	}
}

// protoValueOfString wraps protoreflect.ValueOfString for brevity.
func protoValueOfString(s string) protoreflect.Value { return protoreflect.ValueOfString(s) }
