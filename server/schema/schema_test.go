package schema_test

import (
	"path"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	_ "github.com/hivegate/hivegate/server/schema"
)

// reservedWords are words that generated code in a common language uses as
// written (Python attributes, JavaScript and TypeScript property names in
// some generators): a field named after one needs getattr(msg, "from") in
// Python. Go and C# capitalize field names; Java and C++ generators escape.
var reservedWords = map[string]bool{}

func init() {
	python := "False None True and as assert async await break class continue def del elif else except " +
		"finally for from global if import in is lambda nonlocal not or pass raise return try while with yield"
	javascript := "break case catch class const continue debugger default delete do else enum export extends " +
		"false finally for function if implements import in instanceof interface let new null package private " +
		"protected public return static super switch this throw true try typeof var void while with yield await"
	for _, w := range strings.Fields(python + " " + javascript) {
		reservedWords[w] = true
	}
}

// apiFiles returns the descriptors of hivegate's own .proto files.
func apiFiles(t *testing.T) []protoreflect.FileDescriptor {
	t.Helper()
	var out []protoreflect.FileDescriptor
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		if strings.HasPrefix(fd.Path(), "hive/") || strings.HasPrefix(fd.Path(), "hivegate/") {
			out = append(out, fd)
		}
		return true
	})
	if len(out) < 40 {
		t.Fatalf("found %d hivegate .proto files; the schema package links them all", len(out))
	}
	return out
}

// TestFileNamesDistinct checks what a stock protoc needs to generate C#
// without "Tried to write the same file twice": C# names each output file
// after the .proto file's base name, in one directory.
func TestFileNamesDistinct(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for _, fd := range apiFiles(t) {
		base := strings.TrimSuffix(path.Base(fd.Path()), ".proto")
		cs := strings.ToLower(strings.ReplaceAll(base, "_", "")) + ".cs"
		if prev, dup := seen[cs]; dup {
			t.Errorf("%s and %s both generate C# file %s", prev, fd.Path(), cs)
		}
		seen[cs] = fd.Path()
	}
}

// TestFileOptions checks that every file names its packages for the common
// generators, with the values buf's managed mode uses for gen/.
func TestFileOptions(t *testing.T) {
	t.Parallel()
	for _, fd := range apiFiles(t) {
		opts, _ := fd.Options().(*descriptorpb.FileOptions)
		pkg := string(fd.Package())
		var cs []string
		for _, part := range strings.Split(pkg, ".") {
			var b strings.Builder
			for _, w := range strings.Split(part, "_") {
				b.WriteString(strings.ToUpper(w[:1]) + w[1:])
			}
			cs = append(cs, b.String())
		}
		dir := path.Dir(fd.Path())
		parts := strings.Split(pkg, ".")
		want := map[string]string{
			"csharp_namespace": strings.Join(cs, "."),
			"java_package":     javaPackage(pkg),
			"go_package":       "github.com/hivegate/hivegate/gen/" + dir + ";" + parts[len(parts)-2] + parts[len(parts)-1],
		}
		got := map[string]string{
			"csharp_namespace": opts.GetCsharpNamespace(),
			"java_package":     opts.GetJavaPackage(),
			"go_package":       opts.GetGoPackage(),
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s: option %s = %q, want %q", fd.Path(), k, got[k], w)
			}
		}
		if !opts.GetJavaMultipleFiles() {
			t.Errorf("%s: java_multiple_files is not set", fd.Path())
		}
	}
}

// javaPackage is the Java package of proto package pkg: under
// io.github.hivegate, a name the project owns (its GitHub organisation);
// hivegate's own packages are io.github.hivegate.v1, not
// io.github.hivegate.hivegate.v1.
func javaPackage(pkg string) string {
	if rest, ok := strings.CutPrefix(pkg, "hivegate."); ok {
		return "io.github.hivegate." + rest
	}
	return "io.github.hivegate." + pkg
}

// TestNoReservedFieldNames checks that no field is named after a reserved
// word of Python or JavaScript; such fields take another name and keep the
// backend's JSON key with (hivegate.v1.json_key).
func TestNoReservedFieldNames(t *testing.T) {
	t.Parallel()
	n := 0
	for _, fd := range apiFiles(t) {
		walkMessages(fd.Messages(), func(md protoreflect.MessageDescriptor) {
			fields := md.Fields()
			for i := range fields.Len() {
				n++
				if f := fields.Get(i); reservedWords[string(f.Name())] {
					t.Errorf("%s: field named %q, a reserved word", f.FullName(), f.Name())
				}
			}
		})
	}
	if n < 1000 {
		t.Fatalf("checked %d fields; the schema has far more", n)
	}
}

// walkMessages calls fn for every message, nested ones included.
func walkMessages(msgs protoreflect.MessageDescriptors, fn func(protoreflect.MessageDescriptor)) {
	for i := range msgs.Len() {
		md := msgs.Get(i)
		fn(md)
		walkMessages(md.Messages(), fn)
	}
}
