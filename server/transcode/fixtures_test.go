package transcode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoregistry"

	// The generated packages register the typed methods' descriptors.
	hivetypesv1 "github.com/hivegate/hivegate/gen/hive/types/v1"
	"github.com/hivegate/hivegate/hivesim"
	_ "github.com/hivegate/hivegate/server/schema" // every generated API package

	"github.com/hivegate/hivegate/internal/fixtures"
)

// recordedMethod returns the method a recorded request calls, resolving
// the legacy {"method":"call","params":[api, method, args]} form to
// "api.method".
func recordedMethod(c hivesim.Case) string {
	if c.Method != "call" {
		return c.Method
	}
	var params []json.RawMessage
	if err := json.Unmarshal(c.Params, &params); err != nil || len(params) < 2 {
		return c.Method
	}
	var api, method string
	if json.Unmarshal(params[0], &api) != nil || json.Unmarshal(params[1], &method) != nil {
		return c.Method
	}
	return api + "." + method
}

// methodTally counts the fixture cases of one typed method.
type methodTally struct {
	passed, failed, errorCases int
	failures                   []string
}

// TestFixtures decodes every recorded result of a typed method into its
// response message, requires that no JSON key is left unknown, encodes the
// message back and compares it with the recording as JSON values (a 64-bit
// integer field's number and numeric string are equal; next_start is not
// hived JSON).
func TestFixtures(t *testing.T) {
	t.Parallel()
	reg, err := NewRegistry(protoregistry.GlobalFiles, protoregistry.GlobalTypes)
	if err != nil {
		t.Fatalf("NewRegistry: %v", err)
	}
	codec := NewCodec()
	tallies := map[string]*methodTally{}
	untyped := map[string]int{}
	for _, fc := range fixtures.All(t) {
		name := recordedMethod(fc)
		m, ok := reg.Lookup(name)
		if !ok {
			untyped[name]++
			continue
		}
		tally := tallies[name]
		if tally == nil {
			tally = &methodTally{}
			tallies[name] = tally
		}
		if fc.Result == nil {
			tally.errorCases++
			continue
		}
		result, reason := hivesim.RecordedResult(fc.Name, fc.Result)
		if reason != "" {
			tally.errorCases++
			continue
		}
		if problem := roundTripFixture(codec, m, result); problem != "" {
			tally.failed++
			tally.failures = append(tally.failures, fc.Name+": "+problem)
			continue
		}
		tally.passed++
	}
	names := make([]string, 0, len(tallies))
	for name := range tallies {
		names = append(names, name)
	}
	sort.Strings(names)
	var summary strings.Builder
	for _, name := range names {
		tl := tallies[name]
		fmt.Fprintf(&summary, "\n  %-55s passed %3d / %3d (error responses skipped: %d)",
			name, tl.passed, tl.passed+tl.failed, tl.errorCases)
	}
	untypedNames := make([]string, 0, len(untyped))
	for name := range untyped {
		untypedNames = append(untypedNames, name)
	}
	sort.Strings(untypedNames)
	t.Logf("typed methods: %d; methods without a typed RPC (skipped): %d %v%s",
		len(names), len(untyped), untypedNames, summary.String())
	for _, name := range names {
		for _, f := range tallies[name].failures {
			t.Errorf("%s: %s", name, f)
		}
	}
}

// roundTripFixture decodes result, encodes it back and compares; it returns
// "" on success or a description of the first problems.
func roundTripFixture(c *Codec, m *Method, result json.RawMessage) string {
	msg := m.Response.New().Interface()
	unknown, err := c.Unmarshal(result, msg)
	if err != nil {
		return "decode: " + err.Error()
	}
	if len(unknown) > 0 {
		return fmt.Sprintf("unknown keys (schema gap): %s", summarize(uniquePaths(unknown)))
	}
	out, err := c.Marshal(msg)
	if err != nil {
		return "encode: " + err.Error()
	}
	want, err := decodeGeneric(result)
	if err != nil {
		return "recorded result: " + err.Error()
	}
	got, err := decodeGeneric(out)
	if err != nil {
		return "encoded result: " + err.Error()
	}
	cmp := comparer{}
	cmp.message(c.plan(m.Response.Descriptor()), want, got, "")
	if len(cmp.diffs) > 0 {
		return "round trip differs: " + summarize(uniquePaths(cmp.diffs))
	}
	return ""
}

// uniquePaths replaces array indexes by [] and removes duplicates, so one
// schema gap is reported once per field rather than once per element.
func uniquePaths(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		var b strings.Builder
		skip := false
		for _, r := range p {
			switch {
			case r == '[':
				skip = true
				b.WriteString("[]")
			case r == ']':
				skip = false
			case !skip:
				b.WriteRune(r)
			}
		}
		if s := b.String(); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// summarize joins the first few items.
func summarize(items []string) string {
	const max = 8
	if len(items) > max {
		return strings.Join(items[:max], "; ") + fmt.Sprintf("; ... (%d more)", len(items)-max)
	}
	return strings.Join(items, "; ")
}

// decodeGeneric parses JSON keeping numbers as json.Number.
func decodeGeneric(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// comparer compares a recorded result with the encoded one, guided by the
// plans so that 64-bit integer fields may differ between number and string.
type comparer struct {
	diffs []string
}

func (c *comparer) diff(path, format string, args ...any) {
	c.diffs = append(c.diffs, joinPath(path)+": "+fmt.Sprintf(format, args...))
}

func joinPath(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

func key(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func (c *comparer) message(p *messagePlan, want, got any, path string) {
	switch p.shape {
	case shapeObject:
		w, ok1 := want.(map[string]any)
		g, ok2 := got.(map[string]any)
		if !ok1 || !ok2 {
			c.generic(want, got, path)
			return
		}
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			wv, inW := w[k]
			gv, inG := g[k]
			switch {
			case !inG && isNeverTimeJSON(wv):
				// An unset Timestamp is left out of the objects the codec
				// writes: a never-time member equals an absent one
				// (proto/README.md, "Times"), and nothing else does.
			case !inG:
				c.diff(key(path, k), "recorded %s, not written back", short(wv))
			case !inW:
				c.diff(key(path, k), "written as %s, absent from the recording", short(gv))
			default:
				c.field(p.byKey[k], wv, gv, key(path, k))
			}
		}
	case shapeTupleArr:
		w, ok1 := want.([]any)
		g, ok2 := got.([]any)
		if !ok1 || !ok2 || len(w) != len(g) || len(w) > len(p.fields) {
			c.generic(want, got, path)
			return
		}
		for i := range w {
			c.field(p.fields[i], w[i], g[i], path+"["+strconv.Itoa(i)+"]")
		}
	case shapeBareValue:
		var match *fieldPlan
		n := 0
		for _, f := range p.fields {
			if f.accepts(firstByte(want)) {
				match, n = f, n+1
			}
		}
		if n != 1 {
			c.generic(want, got, path)
			return
		}
		c.field(match, want, got, path)
	default:
		c.generic(want, got, path)
	}
}

// firstByte returns the first byte of the JSON form of a generic value.
func firstByte(v any) byte {
	switch v := v.(type) {
	case map[string]any:
		return '{'
	case []any:
		return '['
	case string:
		return '"'
	case bool:
		if v {
			return 't'
		}
		return 'f'
	case json.Number:
		return string(v)[0]
	}
	return 'n'
}

func (c *comparer) field(f *fieldPlan, want, got any, path string) {
	switch {
	case want == nil || got == nil:
		c.generic(want, got, path)
	case f.list:
		w, ok1 := want.([]any)
		g, ok2 := got.([]any)
		if !ok1 || !ok2 || len(w) != len(g) {
			c.generic(want, got, path)
			return
		}
		for i := range w {
			c.element(f, w[i], g[i], path+"["+strconv.Itoa(i)+"]")
		}
	case f.mapVal != nil:
		w, ok1 := want.(map[string]any)
		g, ok2 := got.(map[string]any)
		if !ok1 || !ok2 || len(w) != len(g) {
			c.generic(want, got, path)
			return
		}
		for k, wv := range w {
			c.element(f.mapVal, wv, g[k], key(path, k))
		}
	default:
		c.element(f, want, got, path)
	}
}

func (c *comparer) element(f *fieldPlan, want, got any, path string) {
	switch f.kind {
	case kindMessage:
		c.message(f.msg, want, got, path)
	case kindInt64, kindUint64:
		if sameInteger(want, got) {
			return
		}
		c.generic(want, got, path)
	default:
		c.generic(want, got, path)
	}
}

// sameInteger reports whether two values are the same integer, each written
// as a JSON number or a numeric string.
func sameInteger(a, b any) bool {
	x, ok1 := integerText(a)
	y, ok2 := integerText(b)
	return ok1 && ok2 && x == y
}

func integerText(v any) (string, bool) {
	var s string
	switch v := v.(type) {
	case json.Number:
		s = string(v)
	case string:
		s = v
	default:
		return "", false
	}
	i, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return "", false
	}
	return i.String(), true
}

// generic compares two JSON values strictly (numbers by value).
func (c *comparer) generic(want, got any, path string) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			c.diff(path, "recorded %s, written %s", short(want), short(got))
			return
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				c.diff(key(path, k), "recorded %s, not written back", short(wv))
				continue
			}
			c.generic(wv, gv, key(path, k))
		}
		for k, gv := range g {
			if _, ok := w[k]; !ok {
				c.diff(key(path, k), "written as %s, absent from the recording", short(gv))
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			c.diff(path, "recorded %s, written %s", short(want), short(got))
			return
		}
		for i := range w {
			c.generic(w[i], g[i], path+"["+strconv.Itoa(i)+"]")
		}
	case json.Number:
		g, ok := got.(json.Number)
		if !ok || !sameNumber(w, g) {
			c.diff(path, "recorded %s, written %s", short(want), short(got))
		}
	default:
		if want != got {
			c.diff(path, "recorded %s, written %s", short(want), short(got))
		}
	}
}

// sameNumber compares two JSON numbers by value.
func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	x, ok1 := new(big.Rat).SetString(string(a))
	y, ok2 := new(big.Rat).SetString(string(b))
	return ok1 && ok2 && x.Cmp(y) == 0
}

// short renders a value for messages, truncated.
func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}

// TestFixtureComparer checks the fixture comparison itself: 64-bit integer
// fields may switch between number and string, nothing else may differ.
func TestFixtureComparer(t *testing.T) {
	t.Parallel()
	p := NewCodec().plan((&hivetypesv1.Account{}).ProtoReflect().Descriptor())
	testCases := []struct {
		name      string
		want, got string
		diffs     int
	}{
		{"same", `{"id":1,"name":"a"}`, `{"name":"a","id":1}`, 0},
		{"uint64 as string", `{"id":"4294967296"}`, `{"id":4294967296}`, 0},
		{"int64 list as string", `{"proxied_vsf_votes":["4737195157018077",0]}`, `{"proxied_vsf_votes":[4737195157018077,0]}`, 0},
		{"uint32 as string", `{"post_count":"5"}`, `{"post_count":5}`, 1},
		{"different string", `{"name":"a"}`, `{"name":"b"}`, 1},
		{"missing key", `{"name":"a","id":1}`, `{"name":"a"}`, 1},
		{"extra key", `{"name":"a"}`, `{"name":"a","id":1}`, 1},
		{"tuple element", `{"owner":{"key_auths":[["k",1]]}}`, `{"owner":{"key_auths":[["k",2]]}}`, 1},
		{"numbers by value", `{"post_count":1.0}`, `{"post_count":1}`, 0},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w, err1 := decodeGeneric([]byte(tc.want))
			g, err2 := decodeGeneric([]byte(tc.got))
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			var c comparer
			c.message(p, w, g, "")
			if len(c.diffs) != tc.diffs {
				t.Errorf("diffs = %q, want %d", c.diffs, tc.diffs)
			}
		})
	}
}

// isNeverTimeJSON reports one of hived's never-times, 1969-12-31T23:59:59
// (not scheduled) and 1970-01-01T00:00:00 (never happened), in hived's or
// hivemind's spelling: the typed API holds them as an unset Timestamp.
func isNeverTimeJSON(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	switch strings.TrimSuffix(strings.Replace(s, " ", "T", 1), "Z") {
	case "1969-12-31T23:59:59", "1970-01-01T00:00:00":
		return true
	}
	return false
}
