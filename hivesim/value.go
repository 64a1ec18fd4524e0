package hivesim

import (
	"fmt"
	"reflect"
	"strconv"
	"time"
)

// obj is a JSON object as a Go value: key, value, key, value... in
// order (hived writes FC_REFLECT order, which a map would lose).
type obj []any

// legacyAsset and naiAsset write an asset as a legacy string or in NAI form
// whatever the writer's legacy flag.
type (
	legacyAsset Asset
	naiAsset    Asset
)

// rawJSON is pre-encoded JSON.
type rawJSON []byte

// selfWriter is a value that writes itself, in condenser's legacy form when asked.
type selfWriter interface{ writeJSON(w *jw, legacy bool) }

// val writes v with writeValue, assets in NAI form unless wrapped.
func (w *jw) val(v any) { writeValue(w, v, false) }

// writeValue writes v as hived would: an obj member by member, a slice or
// array element by element, a struct (or pointer to one) as the object of its
// fields tagged `hive:"name"` in declaration order, and scalars by fc's rules
// (64-bit integers quoted past 2^53, assets as NAI objects or, when legacy,
// "1.000 HIVE" strings). A func(*jw) or a selfWriter writes itself, nil is null.
func writeValue(w *jw, v any, legacy bool) {
	switch v := v.(type) {
	case nil:
		w.null()
	case obj:
		w.objBegin()
		w.members(legacy, v...)
		w.objEnd()
	case func(*jw):
		v(w)
	case selfWriter:
		v.writeJSON(w, legacy)
	case time.Time:
		w.time(v)
	case Asset:
		writeAsset(w, v, legacy)
	case legacyAsset:
		writeAsset(w, Asset(v), true)
	case naiAsset:
		writeAsset(w, Asset(v), false)
	case rawJSON:
		w.raw(v)
	case float64:
		w.sep()
		w.b = strconv.AppendFloat(w.b, v, 'f', -1, 64)
	case Price:
		writePrice(w, v, legacy)
	case Authority:
		writeAuthority(w, &v)
	case U128:
		w.str(v.String())
	default:
		writeReflected(w, reflect.ValueOf(v), legacy)
	}
}

func writeReflected(w *jw, v reflect.Value, legacy bool) {
	switch v.Kind() {
	case reflect.String:
		w.str(v.String())
	case reflect.Bool:
		w.boolean(v.Bool())
	case reflect.Int64:
		w.i64(v.Int())
	case reflect.Uint64:
		w.u64(v.Uint())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32:
		w.num(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32:
		w.num(int64(v.Uint()))
	case reflect.Slice, reflect.Array:
		w.arrBegin()
		for i := range v.Len() {
			writeValue(w, v.Index(i).Interface(), legacy)
		}
		w.arrEnd()
	case reflect.Pointer:
		writeValue(w, v.Elem().Interface(), legacy)
	case reflect.Struct:
		writeValue(w, fields(v), legacy)
	default:
		panic(fmt.Sprintf("hivesim: no writer for %s", v.Type()))
	}
}

// fields is the members of a struct's (or a pointer's struct's) tagged fields.
func fields(x any) obj {
	v, ok := x.(reflect.Value)
	if !ok {
		v = reflect.Indirect(reflect.ValueOf(x))
	}
	var o obj
	for i := range v.NumField() {
		if k := v.Type().Field(i).Tag.Get("hive"); k != "" {
			o = append(o, k, v.Field(i).Interface())
		}
	}
	return o
}

// writeObject writes x, a struct with hive tags.
func writeObject[T any](w *jw, x *T, legacy bool) { writeValue(w, x, legacy) }
