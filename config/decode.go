package config

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// The schema is declared as Go structs: each key is a field with a `yaml`
// tag naming it (Config, Settings, Limits, CacheSettings, Ops, Tracing,
// AuthSettings, AuthApp, QuotaSettings, and the private sections of Drone's
// and jussi's formats). A decoder walks the node tree against them,
// strictly: a key no field declares is an error naming file, line and key.
// Other tags say how a value is read:
//
//	as:"kind"     the value's type (kinds and stringKinds, kinds.go; for a
//	              list, its items')
//	range:"a..b"  bounds of a number or duration ("1..", "1ms..10s")
//	pairs:"k"     a jussi list of [key, value] pairs or {"prefix", k} objects
//	warn:"text"   the key is accepted with this warning ("%v": the value)
//	when:"v"      …only when the value is true, false or nonzero
//
// A field's Go type chooses the rest: string, bool, ints and float64 are
// strict (a quoted number is not a number), a struct is a mapping, a slice a
// list, a slice of Entry or Backend a mapping of keys that are data. Types
// with rules of their own implement yaml.Unmarshaler (TTL, durations,
// address ranges), or decodable when they need positions of nested values
// or the decoder's warnings (backends, equivalent_methods, jussi's
// upstreams); a string kind is a check in stringKinds. A section with defaults of its own has a setDefaults method;
// one with rules across keys a validate method, which Config.validate runs
// once every key is read.
//
// So a new section is a struct type with tagged fields and doc comments, a
// field of that type in Config tagged with the section's name (and in
// jussiFile if the JSON format takes it too), its defaults in defaults()
// (default.go), and a validate method when its keys depend on each other.

// decodable is a value that decodes itself from n with the decoder's help.
type decodable interface {
	decode(d *decoder, n *yaml.Node, path string) error
}

// keyed is an element of a mapping whose keys are data (method keys,
// backend names): it takes its key and where the key and its value are,
// and returns what its value decodes into.
type keyed interface {
	setKey(key string, kpos, vpos Pos) reflect.Value
}

// defaulted is a section or list item with defaults of its own, set before
// its keys are read (default.go).
type defaulted interface{ setDefaults() }

// nullable is a section that may be given empty (`cache:` alone); other
// sections must be mappings.
type nullable interface{ nullable() }

func (*CacheSettings) nullable() {}
func (*AuthSettings) nullable()  {}

// validated is a section with rules across its keys (or other sections):
// its validate runs in Config.validate, once every key is read; path is
// where the section was given.
type validated interface {
	validate(d *decoder, path string) error
}

// kinds are the value types that a field's as:"kind" tag names. Each has
// the underlying type of the fields it is used for.
var kinds = map[string]reflect.Type{
	"timeout":     reflect.TypeFor[timeout](),
	"interval":    reflect.TypeFor[interval](),
	"age":         reflect.TypeFor[age](),
	"retries":     reflect.TypeFor[retries](),
	"millis":      reflect.TypeFor[millis](),
	"seconds":     reflect.TypeFor[seconds](),
	"fseconds":    reflect.TypeFor[fseconds](),
	"prefix":      reflect.TypeFor[prefix](),
	"not":         reflect.TypeFor[not](),
	"equivalents": reflect.TypeFor[equivalents](),
	"key_sha256":  reflect.TypeFor[keyDigest](), // quota.go
}

// decoder reads node trees into the schema.
type decoder struct {
	cfg  *Config
	file string
	// files names the file of the values merged from another one (a
	// config.local.yaml: local.go).
	files map[*yaml.Node]string
	// keys holds the key and value node of every key read, by path.
	keys map[string][2]*yaml.Node
	// checks are the validations of the sections read, innermost first,
	// run by Config.validate.
	checks []func() error
}

func newDecoder(cfg *Config, file string) *decoder {
	return &decoder{cfg: cfg, file: file, keys: map[string][2]*yaml.Node{}}
}

func (d *decoder) pos(n *yaml.Node) Pos {
	if n == nil {
		return Pos{File: d.file}
	}
	if f, ok := d.files[n]; ok {
		return Pos{File: f, Line: n.Line}
	}
	return Pos{File: d.file, Line: n.Line}
}

func (d *decoder) errf(n *yaml.Node, key, format string, args ...any) error {
	return &Error{Pos: d.pos(n), Key: key, Err: fmt.Errorf(format, args...)}
}

// given reports whether the key at path was read.
func (d *decoder) given(path string) bool { _, ok := d.keys[path]; return ok }

// at returns the value node of the key at path (nil when not given).
func (d *decoder) at(path string) *yaml.Node { return d.keys[path][1] }

// keyAt returns the key node of the key at path (nil when not given).
func (d *decoder) keyAt(path string) *yaml.Node { return d.keys[path][0] }

// warn records a warning about the key at path, written at n.
func (d *decoder) warn(n *yaml.Node, path, format string, args ...any) {
	d.cfg.Warnings = append(d.cfg.Warnings, fmt.Sprintf("%s: %s: ", d.pos(n), path)+fmt.Sprintf(format, args...))
}

// field is a struct field that a key decodes into, with its tags.
type field struct {
	v   reflect.Value
	tag reflect.StructTag
}

// fieldsOf adds the yaml-tagged fields of the struct v to out, the fields
// of untagged embedded structs inline.
func fieldsOf(v reflect.Value, out map[string]field) {
	for i := range v.NumField() {
		sf := v.Type().Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
		fv := v.Field(i)
		switch {
		case sf.Anonymous && name == "" && fv.Kind() == reflect.Pointer:
			if !fv.IsNil() {
				fieldsOf(fv.Elem(), out)
			}
		case sf.Anonymous && name == "":
			fieldsOf(fv, out)
		case name != "" && name != "-" && sf.IsExported():
			out[name] = field{v: fv, tag: sf.Tag}
		}
	}
}

// mapping reads the mapping n into the fields of the structs targets point
// to; a key none of them declares is an error.
func (d *decoder) mapping(n *yaml.Node, path string, targets ...any) error {
	if _, ok := targets[0].(nullable); ok && n.Kind == yaml.ScalarNode && n.Tag == tagNull {
		return nil // an empty section
	}
	if n.Kind != yaml.MappingNode {
		return d.errf(n, path, "want a mapping of keys to values, got %s", describe(n))
	}
	fields := map[string]field{}
	for _, t := range targets {
		fieldsOf(reflect.ValueOf(t).Elem(), fields)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		p := keyOf(path, k.Value)
		f, ok := fields[k.Value]
		if !ok {
			return d.errf(k, p, "unknown key")
		}
		d.keys[p] = [2]*yaml.Node{k, v}
		if err := d.value(v, p, f.v, f.tag); err != nil {
			return err
		}
		if w := f.tag.Get("warn"); w != "" && warnWhen(f.tag.Get("when"), f.v) {
			if w == "unread" {
				w = "jussi documents this key but never reads it; hivegate ignores it too"
			} else if strings.Contains(w, "%v") {
				w = fmt.Sprintf(w, f.v.Interface())
			}
			d.warn(k, p, "%s", w)
		}
	}
	return nil
}

func warnWhen(when string, v reflect.Value) bool {
	switch when {
	case "true":
		return v.Bool()
	case "false":
		return !v.Bool()
	case "nonzero":
		return !v.IsZero() && !(v.CanInt() && v.Int() <= 0)
	}
	return true
}

// value reads n into dst as its type and tags say.
func (d *decoder) value(n *yaml.Node, path string, dst reflect.Value, tag reflect.StructTag) error {
	ptr := dst.Addr()
	if k, ok := kinds[tag.Get("as")]; ok && k.Kind() == dst.Kind() {
		ptr = ptr.Convert(reflect.PointerTo(k))
	}
	switch u := ptr.Interface().(type) {
	case decodable:
		return u.decode(d, n, path)
	case yaml.Unmarshaler:
		if err := u.UnmarshalYAML(n); err != nil {
			return d.wrap(n, path, err)
		}
		return d.inRange(n, path, dst, tag)
	}
	var err error
	if check, ok := stringKinds[tag.Get("as")]; ok && dst.Kind() == reflect.String {
		s, err := str(n)
		if err == nil {
			s, err = check(s)
		}
		if err != nil {
			return d.wrap(n, path, err)
		}
		dst.SetString(s)
		return nil
	}
	switch dst.Kind() {
	case reflect.Struct:
		s := ptr.Interface()
		if s, ok := s.(defaulted); ok {
			s.setDefaults()
		}
		if err := d.mapping(n, path, s); err != nil {
			return err
		}
		if s, ok := s.(validated); ok {
			d.checks = append(d.checks, func() error { return s.validate(d, path) })
		}
		return nil
	case reflect.Pointer:
		if dst.IsNil() {
			dst.Set(reflect.New(dst.Type().Elem()))
		}
		return d.value(n, path, dst.Elem(), tag)
	case reflect.Slice:
		return d.slice(n, path, dst, tag)
	case reflect.String:
		var s string
		if s, err = str(n); err == nil {
			dst.SetString(s)
		}
	case reflect.Bool:
		var b bool
		if b, err = boolean(n); err == nil {
			dst.SetBool(b)
		}
	case reflect.Int, reflect.Int64:
		var i int64
		if i, err = integer(n); err == nil {
			dst.SetInt(i)
		}
	case reflect.Float64:
		var f float64
		if f, err = number(n); err == nil {
			dst.SetFloat(f)
		}
	default:
		panic("config: no decoder for " + dst.Type().String())
	}
	if err != nil {
		return d.wrap(n, path, err)
	}
	return d.inRange(n, path, dst, tag)
}

// slice reads a list, a mapping of keyed elements, or jussi's pairs.
func (d *decoder) slice(n *yaml.Node, path string, dst reflect.Value, tag reflect.StructTag) error {
	elem := dst.Type().Elem()
	_, isKeyed := reflect.New(elem).Interface().(keyed)
	if n.Kind == yaml.ScalarNode && n.Tag == tagNull && tag.Get("pairs") == "" {
		if !isKeyed {
			dst.Set(reflect.MakeSlice(dst.Type(), 0, 0)) // given, empty
		}
		return nil
	}
	mappings := elem.Kind() == reflect.Struct && tag.Get("as") == "" // items are mappings
	itemTag := reflect.StructTag(`as:"` + tag.Get("as") + `" range:"` + tag.Get("range") + `"`)
	add := func() reflect.Value {
		dst.Set(reflect.Append(dst, reflect.Zero(elem)))
		return dst.Index(dst.Len() - 1)
	}
	switch {
	case tag.Get("pairs") != "":
		return d.pairs(n, path, tag.Get("pairs"), func(key string, kn, vn *yaml.Node) error {
			v := add().Addr().Interface().(keyed).setKey(key, d.pos(kn), d.pos(vn))
			return d.value(vn, path+"."+key, v, itemTag)
		})
	case isKeyed:
		if n.Kind != yaml.MappingNode {
			return d.errf(n, path, "want a mapping, got %s", describe(n))
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Value == "" {
				return d.errf(k, path, "empty key")
			}
			v := add().Addr().Interface().(keyed).setKey(k.Value, d.pos(k), d.pos(n.Content[i+1]))
			d.keys[path+"."+k.Value] = [2]*yaml.Node{k, n.Content[i+1]}
			if err := d.value(n.Content[i+1], path+"."+k.Value, v, itemTag); err != nil {
				return err
			}
		}
		return nil
	case n.Kind != yaml.SequenceNode && mappings:
		return d.errf(n, path, "want a list, got %s", describe(n))
	case n.Kind != yaml.SequenceNode:
		return d.errf(n, path, "want a list of strings, got %s", describe(n))
	}
	dst.Set(reflect.MakeSlice(dst.Type(), 0, len(n.Content)))
	for i, item := range n.Content {
		p := path
		if mappings {
			p = path + "[" + strconv.Itoa(i) + "]"
			d.keys[p] = [2]*yaml.Node{nil, item}
		}
		if err := d.value(item, p, add(), itemTag); err != nil {
			return err
		}
	}
	return nil
}

// pairs walks a jussi list of [key, value] pairs or {"prefix": key,
// valueKey: value} objects.
func (d *decoder) pairs(n *yaml.Node, path, valueKey string, f func(key string, k, v *yaml.Node) error) error {
	if n.Kind != yaml.SequenceNode {
		return d.errf(n, path, "want a list of [key, value] pairs, got %s", describe(n))
	}
	for _, item := range n.Content {
		var kn, vn *yaml.Node
		switch item.Kind {
		case yaml.SequenceNode:
			if len(item.Content) != 2 {
				return d.errf(item, path, "want a [key, value] pair, got a list of %d", len(item.Content))
			}
			kn, vn = item.Content[0], item.Content[1]
		case yaml.MappingNode:
			for i := 0; i+1 < len(item.Content); i += 2 {
				switch k := item.Content[i]; k.Value {
				case "prefix":
					kn = item.Content[i+1]
				case valueKey:
					vn = item.Content[i+1]
				default:
					return d.errf(k, path+"."+k.Value, "unknown key (want prefix and %s)", valueKey)
				}
			}
			if kn == nil || vn == nil {
				return d.errf(item, path, "want {\"prefix\": key, %q: value}", valueKey)
			}
		default:
			return d.errf(item, path, "want a [key, value] pair, got %s", describe(item))
		}
		key, err := str(kn)
		if err != nil {
			return d.wrap(kn, path, err)
		}
		if key == "" {
			return d.errf(kn, path, "empty method key")
		}
		if err := f(key, kn, vn); err != nil {
			return err
		}
	}
	return nil
}

// rangeError is a message that follows the key's name: "port 70000 out of
// range 0..65535".
type rangeError string

func (e rangeError) Error() string { return string(e) }

// wrap gives a value's error its position and key.
func (d *decoder) wrap(n *yaml.Node, path string, err error) error {
	var re rangeError
	if errors.As(err, &re) {
		err = errors.New(path[strings.LastIndexByte(path, '.')+1:] + " " + string(re))
	}
	return &Error{Pos: d.pos(n), Key: path, Err: err}
}

var durationType = reflect.TypeFor[time.Duration]()

// inRange checks a number or a duration against its range:"lo..hi" tag.
func (d *decoder) inRange(n *yaml.Node, path string, v reflect.Value, tag reflect.StructTag) error {
	lo, hi, ok := strings.Cut(tag.Get("range"), "..")
	if !ok {
		return nil
	}
	var out bool
	switch {
	case v.Type() == durationType:
		l, _ := time.ParseDuration(lo)
		h, err := time.ParseDuration(hi)
		t := time.Duration(v.Int())
		if t < l || err == nil && t > h {
			return d.errf(n, path, "%v out of range %s..%s", t, lo, hi)
		}
		return nil
	case v.CanFloat():
		l, _ := strconv.ParseFloat(lo, 64)
		h, err := strconv.ParseFloat(hi, 64)
		out = v.Float() < l || err == nil && v.Float() > h
	default:
		l, _ := strconv.ParseInt(lo, 10, 64)
		h, err := strconv.ParseInt(hi, 10, 64)
		out = v.Int() < l || err == nil && v.Int() > h
	}
	if out && lo == "0" && hi == "" {
		return d.wrap(n, path, rangeError(fmt.Sprintf("%v is negative: use 0 to turn it off", v.Interface())))
	}
	if out {
		return d.wrap(n, path, rangeError(fmt.Sprintf("%v out of range %s..%s", v.Interface(), lo, hi)))
	}
	return nil
}

// describe names what a node holds, for "want X, got Y" messages.
func describe(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Tag == tagNull:
		return "nothing (null)"
	case looksLikePrivateKey(n.Value):
		return "a value that looks like a private key (not repeated here)"
	case n.Tag == tagStr:
		return strconv.Quote(n.Value)
	}
	return n.Value
}

// str reads a string. Numbers and booleans are not strings: a config that
// says `hostname: 8080` is wrong, and saying so beats guessing.
func str(n *yaml.Node) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != tagStr {
		return "", fmt.Errorf("want a string, got %s", describe(n))
	}
	return n.Value, nil
}

// integer reads a decimal integer (YAML's 1_000 spelling included); quoted
// numbers are strings, not integers.
func integer(n *yaml.Node) (int64, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != tagInt {
		return 0, fmt.Errorf("want an integer, got %s", describe(n))
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("want a decimal integer, got %s", n.Value)
	}
	return v, nil
}

func boolean(n *yaml.Node) (bool, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == tagBool {
		switch n.Value {
		case "true", "True", "TRUE":
			return true, nil
		case "false", "False", "FALSE":
			return false, nil
		}
	}
	return false, fmt.Errorf("want true or false, got %s", describe(n))
}

// number reads an integer or a fraction.
func number(n *yaml.Node) (float64, error) {
	if n.Kind == yaml.ScalarNode && (n.Tag == tagInt || n.Tag == tagFloat) {
		v, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		if err == nil && !math.IsNaN(v) {
			return v, nil
		}
	}
	return 0, fmt.Errorf("want a number, got %s", describe(n))
}
