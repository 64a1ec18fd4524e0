package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// decoder turns node values into typed values, producing errors that name
// the file, line and key.
type decoder struct {
	file string
}

func (d *decoder) errf(n *node, key, format string, args ...any) error {
	pos := Pos{File: d.file}
	if n != nil {
		pos = d.pos(n)
	}
	return &Error{Pos: pos, Key: key, Err: fmt.Errorf(format, args...)}
}

func (d *decoder) pos(n *node) Pos {
	if n.file != "" {
		return Pos{File: n.file, Line: n.line}
	}
	return Pos{File: d.file, Line: n.line}
}

// fields walks a map node, calling set for each key; keys set does not know
// are errors.
func (d *decoder) fields(n *node, path string, set func(key string, k, v *node) (bool, error)) error {
	if n.kind != kindMap {
		return d.errf(n, path, "want a mapping of keys to values, got %s", describe(n))
	}
	for i, k := range n.keys {
		full := k.str
		if path != "" {
			full = path + "." + k.str
		}
		known, err := set(k.str, k, n.vals[i])
		if err != nil {
			return err
		}
		if !known {
			return d.errf(k, full, "unknown key")
		}
	}
	return nil
}

// describe names what a node holds, for "want X, got Y" messages.
func describe(n *node) string {
	switch {
	case n.kind == kindMap:
		return "a mapping"
	case n.kind == kindSeq:
		return "a list"
	case n.null:
		return "nothing (null)"
	case n.tag == tagStr:
		return strconv.Quote(n.str)
	}
	return n.str
}

// str reads a string. Numbers and booleans are not strings: a config that
// says `hostname: 8080` is wrong, and saying so beats guessing.
func (d *decoder) str(n *node, key string) (string, error) {
	if n.kind != kindScalar || n.tag != tagStr {
		return "", d.errf(n, key, "want a string, got %s", describe(n))
	}
	return n.str, nil
}

// integer reads a decimal integer (YAML's 1_000 spelling included); quoted
// numbers are strings, not integers.
func (d *decoder) integer(n *node, key string) (int64, error) {
	if n.kind != kindScalar || n.tag != tagInt {
		return 0, d.errf(n, key, "want an integer, got %s", describe(n))
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(n.str, "_", ""), 10, 64)
	if err != nil {
		return 0, d.errf(n, key, "want a decimal integer, got %s", n.str)
	}
	return v, nil
}

func (d *decoder) boolean(n *node, key string) (bool, error) {
	if n.kind == kindScalar && n.tag == tagBool {
		switch n.str {
		case "true", "True", "TRUE":
			return true, nil
		case "false", "False", "FALSE":
			return false, nil
		}
	}
	return false, d.errf(n, key, "want true or false, got %s", describe(n))
}

func (d *decoder) strings(n *node, key string) ([]string, error) {
	if n.kind == kindScalar && n.null {
		return nil, nil
	}
	if n.kind != kindSeq {
		return nil, d.errf(n, key, "want a list of strings")
	}
	out := make([]string, 0, len(n.vals))
	for _, v := range n.vals {
		s, err := d.str(v, key)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// ttl reads a TTL written as a word or an integer (a quoted integer is
// accepted too: some generators quote everything).
func (d *decoder) ttl(n *node, key string) (TTL, error) {
	if n.kind != kindScalar || (n.tag != tagStr && n.tag != tagInt) {
		return TTL{}, d.errf(n, key, "want a TTL (seconds, NO_CACHE, NO_EXPIRE, EXPIRE_IF_REVERSIBLE, or legacy 0, -1, -2), got %s", describe(n))
	}
	t, err := parseTTL(n.str)
	if err != nil {
		return TTL{}, d.errf(n, key, "%v", err)
	}
	return t, nil
}

// timeout reads whole seconds, 0 meaning none, at most MaxTimeoutSeconds.
func (d *decoder) timeout(n *node, key string) (time.Duration, error) {
	if n.kind != kindScalar || n.tag != tagInt {
		return 0, d.errf(n, key, "want a timeout in whole seconds (0 = none), got %s", describe(n))
	}
	v, err := d.integer(n, key)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, d.errf(n, key, "timeout %d is negative: use 0 for no timeout", v)
	}
	if v > MaxTimeoutSeconds {
		return 0, d.errf(n, key, "timeout %d s is over the limit of %d s (one day): use 0 for no timeout", v, MaxTimeoutSeconds)
	}
	return time.Duration(v) * time.Second, nil
}

func (d *decoder) retries(n *node, key string) (int, error) {
	v, err := d.integer(n, key)
	if err != nil {
		return 0, err
	}
	if v < 0 || v > MaxRetries {
		return 0, d.errf(n, key, "retries %d out of range 0..%d", v, MaxRetries)
	}
	return int(v), nil
}
