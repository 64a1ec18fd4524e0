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
type jw struct {
	b        []byte
	first    []bool // one flag per open container: true until its first element is written
	afterKey bool
}

// sep writes the comma that separates container elements, if one is due.
func (w *jw) sep() {
	if w.afterKey {
		w.afterKey = false
		return
	}
	if n := len(w.first); n > 0 {
		if w.first[n-1] {
			w.first[n-1] = false
		} else {
			w.b = append(w.b, ',')
		}
	}
}

func (w *jw) objBegin() {
	w.sep()
	w.b = append(w.b, '{')
	w.first = append(w.first, true)
}

func (w *jw) objEnd() {
	w.b = append(w.b, '}')
	w.first = w.first[:len(w.first)-1]
}

func (w *jw) arrBegin() {
	w.sep()
	w.b = append(w.b, '[')
	w.first = append(w.first, true)
}

func (w *jw) arrEnd() {
	w.b = append(w.b, ']')
	w.first = w.first[:len(w.first)-1]
}

// key writes an object member name; the next value written belongs to it.
func (w *jw) key(k string) {
	w.sep()
	w.b = jsonwire.AppendString(w.b, k)
	w.b = append(w.b, ':')
	w.afterKey = true
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
	w.sep()
	if v > maxSafeInt || v < -maxSafeInt {
		w.b = append(w.b, '"')
		w.b = strconv.AppendInt(w.b, v, 10)
		w.b = append(w.b, '"')
		return
	}
	w.b = strconv.AppendInt(w.b, v, 10)
}

// u64 writes a 64-bit unsigned value with fc's large-number rule.
func (w *jw) u64(v uint64) {
	w.sep()
	if v > maxSafeInt {
		w.b = append(w.b, '"')
		w.b = strconv.AppendUint(w.b, v, 10)
		w.b = append(w.b, '"')
		return
	}
	w.b = strconv.AppendUint(w.b, v, 10)
}

func (w *jw) boolean(v bool) {
	w.sep()
	w.b = strconv.AppendBool(w.b, v)
}

func (w *jw) null() {
	w.sep()
	w.b = append(w.b, "null"...)
}

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
	w.b = appendTime(w.b, t)
	w.b = append(w.b, '"')
}

func appendTime(b []byte, t time.Time) []byte {
	if t.Equal(MaxTime) {
		return append(b, "1969-12-31T23:59:59"...)
	}
	return t.UTC().AppendFormat(b, timeLayout)
}

// Member helpers: key followed by a value.

func (w *jw) kstr(k, v string)            { w.key(k); w.str(v) }
func (w *jw) knum(k string, v int64)      { w.key(k); w.num(v) }
func (w *jw) ki64(k string, v int64)      { w.key(k); w.i64(v) }
func (w *jw) ku64(k string, v uint64)     { w.key(k); w.u64(v) }
func (w *jw) kbool(k string, v bool)      { w.key(k); w.boolean(v) }
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

// kemptyArr writes an empty array member.
func (w *jw) kemptyArr(k string) {
	w.key(k)
	w.sep()
	w.b = append(w.b, "[]"...)
}

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
