package transcode_test

import (
	"slices"
	"testing"

	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/hivegate/hivegate/server/transcode"
)

func TestRegistry(t *testing.T) {
	t.Parallel()
	for _, style := range []optionStyle{{raw: false}, {raw: true}} {
		_, files := buildTestSchema(t, style)
		r, err := transcode.NewRegistry(files, protoregistry.GlobalTypes)
		if err != nil {
			t.Fatalf("NewRegistry: %v", err)
		}
		var names []string
		for _, m := range r.Methods() {
			names = append(names, m.JSONRPC)
		}
		if want := []string{"condenser_api.get_things", "thing_api.list_things"}; !slices.Equal(names, want) {
			t.Errorf("raw=%v: methods = %q, want %q", style.raw, names, want)
		}
		m, ok := r.Lookup("thing_api.list_things")
		if !ok {
			t.Fatalf("raw=%v: thing_api.list_things not found", style.raw)
		}
		if m.Procedure != "/test.v1.ThingService/ListThings" ||
			m.Request.Descriptor().FullName() != "test.v1.ListThingsRequest" ||
			m.Response.Descriptor().FullName() != "test.v1.ListThingsResponse" {
			t.Errorf("raw=%v: method = %+v", style.raw, m)
		}
		if p, ok := r.LookupProcedure("/test.v1.ThingService/ListThings"); !ok || p != m {
			t.Errorf("raw=%v: LookupProcedure = %v, %v", style.raw, p, ok)
		}
		if _, ok := r.Lookup("test.v1.ThingService.Plain"); ok {
			t.Errorf("raw=%v: a method without the option was registered", style.raw)
		}
		// The dynamic response type decodes hived JSON.
		resp := m.Response.New().Interface()
		if _, err := transcode.Unmarshal([]byte(`{"things":[{"id":1}]}`), resp); err != nil {
			t.Errorf("raw=%v: Unmarshal into the registry's response type: %v", style.raw, err)
		}
	}
}

func TestRegistryDuplicateMethod(t *testing.T) {
	t.Parallel()
	fdp := testSchemaFile(optionStyle{})
	svc := fdp.Service[0]
	dup := &descriptorpb.MethodDescriptorProto{
		Name:       svcMethodName("Again"),
		InputType:  svc.Method[0].InputType,
		OutputType: svc.Method[0].OutputType,
		Options:    optionStyle{}.method("thing_api.list_things"),
	}
	svc.Method = append(svc.Method, dup)
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	files := new(protoregistry.Files)
	if err := files.RegisterFile(fd); err != nil {
		t.Fatal(err)
	}
	_, err = transcode.NewRegistry(files, nil)
	want := `transcode: test.v1.ThingService.ListThings and test.v1.ThingService.Again both map to JSON-RPC method "thing_api.list_things"`
	if err == nil || err.Error() != want {
		t.Fatalf("NewRegistry error = %v, want %q", err, want)
	}
}

func svcMethodName(s string) *string { return &s }

// TestOptionsAsUnknownFields checks that options carried as unknown fields
// (descriptors read without the extension types) give the same encoding.
func TestOptionsAsUnknownFields(t *testing.T) {
	t.Parallel()
	in := `{"things":[{"id":1,"name":"a","votes":0,"small":0,"count":0,"flag":false,` +
		`"color":"azure","auths":[["b",1]],"from":"x","nums":[],"tally":{},"raw":"","ratio":0,"big":0,"values":[]}]}`
	for _, style := range []optionStyle{{raw: false}, {raw: true}} {
		fd, _ := buildTestSchema(t, style)
		m := newMsg(t, fd, "ListThingsResponse")
		unknown, err := transcode.Unmarshal([]byte(in), m)
		if err != nil || len(unknown) != 0 {
			t.Fatalf("raw=%v: Unmarshal: %v, unknown %q", style.raw, err, unknown)
		}
		out, err := transcode.Marshal(m)
		if err != nil || string(out) != in {
			t.Errorf("raw=%v: Marshal = %s, %v; want %s", style.raw, out, err, in)
		}
	}
}
