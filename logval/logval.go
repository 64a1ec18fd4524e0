// Package logval bounds what hivegate writes to its logs. Many logged
// values come from a client or a node (a method key with its params, a
// broadcast's operations, an error quoting a node's answer): unbounded, one
// 8,000-operation broadcast made a 40 KB log line, and a client could fill
// the disks of its operator at will. Every logger hivegate uses goes
// through [NewHandler], which cuts each value at [MaxValueBytes]; [Bound]
// does the same to one string, for code that builds a log value by hand.
//
// It is a leaf: it imports nothing of hivegate's.
package logval

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"unicode/utf8"
)

// MaxValueBytes is the most bytes of one logged value (a string, an
// error's text, the text of any other value) and of a log message: enough
// for a method key with the start of its params, a redacted node URL and a
// node's error, short of a transaction. A longer value is cut at a UTF-8
// boundary and ends with "…(+K bytes)", K the bytes left out.
//
// The bound is on the value's text before the handler escapes it (JSON
// escapes a control character in six bytes), so a line of n values is at
// most about n times this plus the keys.
const MaxValueBytes = 512

// Bound returns s when it is at most MaxValueBytes long, otherwise its
// first bytes (at most MaxValueBytes, cut at a rune boundary) and
// "…(+K bytes)".
func Bound(s string) string { return Truncate(s, MaxValueBytes) }

// Truncate returns s when it is at most n bytes long, otherwise its first
// bytes (at most n, cut at a rune boundary so that a multi-byte character
// is never split) and "…(+K bytes)", K the number of bytes left out.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := max(n, 0)
	// A valid rune that starts before cut and ends after it is left out
	// whole; bytes that are not valid UTF-8 are cut at n (the handler
	// replaces them).
	for r := cut; r >= max(0, cut-(utf8.UTFMax-1)); r-- {
		if utf8.RuneStart(s[r]) {
			if _, size := utf8.DecodeRuneInString(s[r:]); size > cut-r {
				cut = r
			}
			break
		}
	}
	return s[:cut] + "…(+" + strconv.Itoa(len(s)-cut) + " bytes)"
}

// NewHandler returns a handler that passes every record to h with each
// value bounded: strings, errors, fmt.Stringers and other values whose text
// is longer than MaxValueBytes are replaced by the bounded text (shorter
// values pass as they are, typed), in groups too, and so is the message.
// Wrapping a handler it made already returns that handler.
func NewHandler(h slog.Handler) slog.Handler {
	if _, ok := h.(*handler); ok {
		return h
	}
	return &handler{next: h}
}

// NewLogger returns a logger writing through NewHandler(l.Handler()); a
// nil l gives a logger that discards everything.
func NewLogger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	if _, ok := l.Handler().(*handler); ok {
		return l
	}
	return slog.New(NewHandler(l.Handler()))
}

// handler is NewHandler's slog.Handler.
type handler struct{ next slog.Handler }

// Enabled implements slog.Handler.
func (h *handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

// Handle implements slog.Handler. A record with nothing to cut is passed
// on as it is; otherwise a copy with the cut values.
func (h *handler) Handle(ctx context.Context, r slog.Record) error {
	long := len(r.Message) > MaxValueBytes
	if !long {
		r.Attrs(func(a slog.Attr) bool {
			long = tooLong(a.Value)
			return !long
		})
	}
	if !long {
		return h.next.Handle(ctx, r)
	}
	nr := slog.NewRecord(r.Time, r.Level, Bound(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		nr.AddAttrs(bound(a))
		return true
	})
	return h.next.Handle(ctx, nr)
}

// WithAttrs implements slog.Handler.
func (h *handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		out[i] = bound(a)
	}
	return &handler{next: h.next.WithAttrs(out)}
}

// WithGroup implements slog.Handler.
func (h *handler) WithGroup(name string) slog.Handler {
	return &handler{next: h.next.WithGroup(Bound(name))}
}

// tooLong reports whether v, or a value in it, is longer than
// MaxValueBytes as text.
func tooLong(v slog.Value) bool {
	v = v.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return len(v.String()) > MaxValueBytes
	case slog.KindGroup:
		for _, a := range v.Group() {
			if len(a.Key) > MaxValueBytes || tooLong(a.Value) {
				return true
			}
		}
		return false
	case slog.KindAny:
		_, long := anyText(v.Any())
		return long
	default:
		return false // numbers, booleans, times, durations
	}
}

// bound returns a with its value (and key) bounded.
func bound(a slog.Attr) slog.Attr {
	a.Key = Bound(a.Key)
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		if len(v.String()) > MaxValueBytes {
			return slog.String(a.Key, Bound(v.String()))
		}
	case slog.KindGroup:
		g := v.Group()
		out := make([]slog.Attr, len(g))
		for i, m := range g {
			out[i] = bound(m)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(out...)}
	case slog.KindAny:
		if s, long := anyText(v.Any()); long {
			return slog.String(a.Key, Bound(s))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

// anyText is the text of a value of kind Any (as the handlers write it:
// an error's Error, a Stringer's String, fmt's %+v otherwise) and whether
// it is longer than MaxValueBytes. A []byte counts by its length.
func anyText(x any) (string, bool) {
	switch t := x.(type) {
	case nil:
		return "", false
	case error:
		s := errorText(t)
		return s, len(s) > MaxValueBytes
	case fmt.Stringer:
		s := t.String()
		return s, len(s) > MaxValueBytes
	case []byte:
		return string(t), len(t) > MaxValueBytes
	case string:
		return t, len(t) > MaxValueBytes
	}
	s := fmt.Sprintf("%+v", x)
	return s, len(s) > MaxValueBytes
}

// errorText is err.Error(), or a placeholder when Error panics on a nil
// receiver (as slog's handlers do).
func errorText(err error) (s string) {
	defer func() {
		if recover() != nil {
			s = "<nil>"
		}
	}()
	return err.Error()
}
