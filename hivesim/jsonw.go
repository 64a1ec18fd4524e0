package hivesim

import (
	"strconv"
	"time"

	"github.com/hivegate/hivegate/jsonwire"
)

// maxSafeInt is 2^53-1. hived (fc, since 1.27.5) writes 64-bit integers whose
// magnitude exceeds it as JSON strings so that JavaScript clients keep every digit.
const maxSafeInt = 1<<53 - 1

// timeLayout is fc's time_point_sec format: seconds precision, no zone suffix.
const timeLayout = "2006-01-02T15:04:05"

// jw is a JSON writer that emits object members in the order they are written.
// hived serialises objects in FC_REFLECT order, so maps (which Go sorts) cannot be used.
// Strings are escaped by jsonwire.
type jw struct{ b []byte }

// sep writes the comma that separates container elements, if one is due:
// after a complete value, which is anything but an opening bracket or a
// member's colon (and the start of the output).
func (w *jw) sep() {
	if n := len(w.b); n > 0 {
		if c := w.b[n-1]; c != '{' && c != '[' && c != ':' {
			w.b = append(w.b, ',')
		}
	}
}

func (w *jw) objBegin() { w.sep(); w.b = append(w.b, '{') }
func (w *jw) objEnd()   { w.b = append(w.b, '}') }
func (w *jw) arrBegin() { w.sep(); w.b = append(w.b, '[') }
func (w *jw) arrEnd()   { w.b = append(w.b, ']') }

// key writes an object member name; the next value written belongs to it.
func (w *jw) key(k string) {
	w.str(k)
	w.b = append(w.b, ':')
}

func (w *jw) str(s string) {
	w.sep()
	w.b = jsonwire.AppendString(w.b, s)
}

// num writes a plain JSON number (used for 8..32-bit fields, which fc never quotes).
func (w *jw) num(v int64) {
	w.sep()
	w.b = strconv.AppendInt(w.b, v, 10)
}

// i64 writes a 64-bit signed value with fc's large-number rule.
func (w *jw) i64(v int64) {
	if v > maxSafeInt || v < -maxSafeInt {
		w.str(strconv.FormatInt(v, 10))
		return
	}
	w.num(v)
}

// u64 writes a 64-bit unsigned value with fc's large-number rule.
func (w *jw) u64(v uint64) {
	if v > maxSafeInt {
		w.str(strconv.FormatUint(v, 10))
		return
	}
	w.num(int64(v))
}

func (w *jw) boolean(v bool) {
	w.sep()
	w.b = strconv.AppendBool(w.b, v)
}

func (w *jw) null() { w.raw([]byte("null")) }

// raw writes pre-encoded JSON as one value.
func (w *jw) raw(b []byte) {
	w.sep()
	w.b = append(w.b, b...)
}

// time writes a time_point_sec. The maximum value (0xffffffff) prints as
// "1969-12-31T23:59:59" because fc formats it through a signed 32-bit cast.
func (w *jw) time(t time.Time) {
	w.sep()
	w.b = append(w.b, '"')
	if t.Equal(MaxTime) {
		w.b = append(w.b, "1969-12-31T23:59:59"...)
	} else {
		w.b = t.UTC().AppendFormat(w.b, timeLayout)
	}
	w.b = append(w.b, '"')
}

// Member helpers: key followed by a value.

func (w *jw) kstr(k, v string)            { w.key(k); w.str(v) }
func (w *jw) knum(k string, v int64)      { w.key(k); w.num(v) }
func (w *jw) ku64(k string, v uint64)     { w.key(k); w.u64(v) }
func (w *jw) ktime(k string, v time.Time) { w.key(k); w.time(v) }

// members writes key, value pairs (see writeValue); legacy selects
// condenser's asset strings.
func (w *jw) members(legacy bool, kv ...any) {
	for i := 0; i+1 < len(kv); i += 2 {
		w.key(kv[i].(string))
		writeValue(w, kv[i+1], legacy)
	}
}

// value writes v with writeValue.
func (w *jw) value(v any, legacy bool) { writeValue(w, v, legacy) }

// kstrs writes an array of strings member.
func (w *jw) kstrs(k string, vs []string) {
	w.key(k)
	w.arrBegin()
	for _, v := range vs {
		w.str(v)
	}
	w.arrEnd()
}

func appendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }
