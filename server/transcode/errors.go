package transcode

import (
	"fmt"
	"strconv"
	"strings"
)

// Error is a decoding or encoding failure at a position in the JSON document.
type Error struct {
	// Path is the JSON path of the offending value, for example
	// "accounts[2].created"; it is empty for the document itself.
	Path string
	// Offset is the byte offset in the input where decoding failed, or -1
	// when encoding.
	Offset int
	// Msg describes the problem.
	Msg string
}

// Error implements error as "<path>: <msg>" (or just the message at the root).
func (e *Error) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// Unknown lists the JSON paths of object keys and tuple elements that the
// message has no field for, in document order (for example
// "accounts[3].vesting_balance"). Their values are skipped, so a round trip
// drops them: new fields added by a newer hived are the one documented loss.
type Unknown []string

// pathSeg is one step of a JSON path: an object key or an array index.
type pathSeg struct {
	key     []byte
	index   int
	isIndex bool
}

// renderPath formats a path stack as "a.b[2].c".
func renderPath(segs []pathSeg) string {
	var b strings.Builder
	for _, s := range segs {
		if s.isIndex {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.Write(s.key)
	}
	return b.String()
}

// errf is fmt.Errorf for messages that are wrapped into an *Error later.
func errf(format string, args ...any) error {
	return fmt.Errorf(format, args...)
}

// kindName names a scalar kind in messages.
func kindName(k scalarKind) string {
	switch k {
	case kindBool:
		return "bool"
	case kindInt32:
		return "int32"
	case kindInt64:
		return "int64"
	case kindUint32:
		return "uint32"
	case kindUint64:
		return "uint64"
	case kindFloat:
		return "float"
	case kindDouble:
		return "double"
	case kindString:
		return "string"
	case kindBytes:
		return "bytes"
	case kindEnum:
		return "enum"
	default:
		return "message"
	}
}
