// Package jsonwire is hivegate's one JSON lexer: the validator, the value
// skipper, member lookup without decoding, string decoding, the canonical
// form of cache keys and the string encoder. Every package that reads or
// writes JSON text by hand uses it, so that there is one set of rules; it
// imports nothing of hivegate's and sits at the bottom of the layers (only
// config is below it).
//
// # Syntax
//
// The grammar is RFC 8259's, exactly what encoding/json's Valid accepts
// (FuzzValid compares the two on arbitrary input):
//   - whitespace is space, tab, CR and LF only;
//   - control characters (U+0000 to U+001F) in strings are rejected; escapes
//     are \" \\ \/ \b \f \n \r \t and \u with four hex digits, nothing else;
//   - numbers are -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, with no
//     limit on their size;
//   - bytes that are not valid UTF-8 inside strings are accepted, as
//     encoding/json accepts them (what they mean is said below).
//
// # Depth
//
// Every function that walks nested values takes a depth limit: a container
// is one level, a scalar none, so [[1]] has depth 2. Input that opens a
// container deeper than the limit is refused with an error that wraps
// ErrTooDeep, and not ErrInvalid, however deep it goes and whatever follows:
// the walk stops at the first container too many, so that hostile input is
// not read further. Input that breaks the grammar before that point gets an
// error wrapping ErrInvalid: whichever comes first in the input decides.
// MaxDepth bounds the canonical form, whose callers give no limit.
//
// # Strings: one rule for what a string is
//
// A string's value is its sequence of code units: each valid UTF-8 sequence
// and each escape is one Unicode code point (an escaped surrogate pair is one
// code point); an escaped surrogate that is not half of a pair is a lone
// surrogate, a unit of its own; each byte that is not part of valid UTF-8 is
// a unit of its own too. Two strings are equal when their sequences are:
// "\u0041" equals "A", but "\ud800", "\udfff", "\ufffd" and a byte 0xff are
// four different strings. The canonical form and EqualString follow this
// rule exactly, so nothing that differs upstream ever shares a cache key.
//
// AppendUnquote and Unquote decode a string into UTF-8 text for a consumer
// that needs valid UTF-8 (a protobuf string, a name compared with a
// configured one, a log line): there lone surrogates and invalid bytes become
// U+FFFD, as encoding/json does. They are never used to tell two strings
// apart.
//
// # The canonical form
//
// AppendCanonical writes the form cache keys are built from. Two values get
// the same canonical form exactly when they are the same JSON value for
// routing and caching (FuzzCanonical checks this against encoding/json):
//   - compact: no whitespace outside strings;
//   - object members sorted by name at every level, compared as the bytes
//     of the name's canonical encoding (for names without control
//     characters, quotes, backslashes or lone surrogates, their UTF-8
//     bytes);
//   - duplicate names: every member is kept, and members with the same name
//     keep the order they were sent in. Which duplicate a node keeps depends
//     on its JSON reader (most keep the last), so {"a":1,"a":2} and
//     {"a":2,"a":1} can be different calls and get different keys, while
//     {"b":0,"a":1,"a":2} and {"a":1,"b":0,"a":2} are one;
//   - numbers keep their text as sent: 1, 1.0 and 1e0 are different keys,
//     since hived reads integers and floats differently;
//   - strings are written with the fewest escapes: \" \\ \b \f \n \r \t,
//     \u00XX for the other control characters, a lone surrogate as its
//     lowercase \uXXXX escape, and everything else as raw bytes, including
//     bytes that are not valid UTF-8 (kept as they are, so they never
//     collide with U+FFFD) and U+2028/U+2029. Escapes that mean the same
//     character share a key: "\u0041" and "A", "\/" and "/".
//
// The canonical form of a canonical form is itself. AppendMatchForm is the
// same form with each number replaced by a spelling of its exact value, for
// comparing configured params= values with a call's params as values.
//
// # Encoding
//
// AppendString writes text as a JSON string with encoding/json's escaping
// without HTML escapes: <, > and & stay raw, as hived writes them.
package jsonwire
