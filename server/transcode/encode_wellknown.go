package transcode

import (
	"strconv"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hivegate/hivegate/jsonwire"
)

// timestamp writes a google.protobuf.Timestamp as hived's time string, with
// sep between the date and the time (hived's 'T', or hivemind's ' ' for the
// fields that say so with (hivegate.v1.time_separator)).
func (e *encoder) timestamp(m protoreflect.Message, sep byte) error {
	fds := m.Descriptor().Fields()
	// Nanos (0..999999999) are dropped: hived times have whole seconds.
	sec := m.Get(fds.ByNumber(tsSeconds)).Int()
	e.buf = append(e.buf, '"')
	var ok bool
	n := len(e.buf)
	if e.buf, ok = appendHivedTime(e.buf, sec); !ok {
		e.buf = e.buf[:len(e.buf)-1]
		return e.errorf("timestamp %d is outside years 0000..9999", sec)
	}
	e.buf[n+10] = sep
	e.buf = append(e.buf, '"')
	return nil
}

// value writes a google.protobuf.Value as the JSON it holds.
func (e *encoder) value(m protoreflect.Message, p *messagePlan) error {
	fd := m.WhichOneof(m.Descriptor().Oneofs().ByName("kind"))
	if fd == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	v := m.Get(fd)
	switch fd.Number() {
	case valueNumber:
		return e.float(v.Float(), 64)
	case valueString:
		e.buf = jsonwire.AppendString(e.buf, v.String())
	case valueBool:
		e.buf = strconv.AppendBool(e.buf, v.Bool())
	case valueStruct:
		return e.structObject(v.Message(), p.fieldByNumber(valueStruct).msg)
	case valueList:
		return e.message(v.Message(), p.fieldByNumber(valueList).msg)
	default:
		e.buf = append(e.buf, "null"...)
	}
	return nil
}

// structObject writes a google.protobuf.Struct as a JSON object with sorted keys.
func (e *encoder) structObject(m protoreflect.Message, p *messagePlan) error {
	f := p.fieldByNumber(structFields)
	return e.mapObject(m.Get(f.desc).Map(), f)
}
