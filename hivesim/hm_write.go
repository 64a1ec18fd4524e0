package hivesim

import (
	"reflect"
	"strconv"
	"time"
)

// obj is a JSON object written in member order: key, value, key, value...
type obj []any

// legacyAsset and naiAsset write an asset as a legacy string or in NAI form.
type (
	legacyAsset Asset
	naiAsset    Asset
)

// rawJSON is pre-encoded JSON.
type rawJSON []byte

// val writes a Go value: int and smaller as plain numbers, int64 and uint64
// with fc's large-number rule, time.Time as time_point_sec, nil as null,
// []string, []any and obj as arrays and objects, a func(*jw) by calling it.
func (w *jw) val(v any) {
	switch x := v.(type) {
	case nil:
		w.null()
	case string:
		w.str(x)
	case int:
		w.num(int64(x))
	case int64:
		w.i64(x)
	case uint64:
		w.u64(x)
	case bool:
		w.boolean(x)
	case float64:
		w.sep()
		w.b = strconv.AppendFloat(w.b, x, 'f', -1, 64)
	case time.Time:
		w.time(x)
	case legacyAsset:
		writeAsset(w, Asset(x), true)
	case naiAsset:
		writeAsset(w, Asset(x), false)
	case rawJSON:
		w.raw(x)
	case []string:
		w.arrBegin()
		for _, s := range x {
			w.str(s)
		}
		w.arrEnd()
	case []any:
		w.arrBegin()
		for _, e := range x {
			w.val(e)
		}
		w.arrEnd()
	case obj:
		w.objBegin()
		for i := 0; i+1 < len(x); i += 2 {
			w.key(x[i].(string))
			w.val(x[i+1])
		}
		w.objEnd()
	case func(*jw):
		x(w)
	default: // the smaller integers
		if rv := reflect.ValueOf(v); rv.CanInt() {
			w.num(rv.Int())
		} else {
			w.num(int64(rv.Uint()))
		}
	}
}

// listOf writes rows as an array, each by f.
func listOf[T any](w *jw, rows []T, f func(T) any) {
	w.arrBegin()
	for _, r := range rows {
		w.val(f(r))
	}
	w.arrEnd()
}

// mapRows converts rows by f.
func mapRows[T, U any](rows []T, f func(T) U) []U {
	out := make([]U, len(rows))
	for i, r := range rows {
		out[i] = f(r)
	}
	return out
}

// strOrNull is s, or null when empty.
func strOrNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}
