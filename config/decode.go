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
	line := 0
	if n != nil {
		line = n.line
	}
	return &Error{Pos: Pos{File: d.file, Line: line}, Key: key, Err: fmt.Errorf(format, args...)}
}

func (d *decoder) pos(n *node) Pos { return Pos{File: d.file, Line: n.line} }

// fields walks a map node, calling set for each key; keys set does not know
// are errors.
func (d *decoder) fields(n *node, path string, set func(key string, k, v *node) (bool, error)) error {
	if n.kind != kindMap {
		return d.errf(n, path, "want a mapping of keys to values")
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

func (d *decoder) str(n *node, key string) (string, error) {
	if n.kind != kindScalar || n.null {
		return "", d.errf(n, key, "want a string")
	}
	return n.str, nil
}

func (d *decoder) integer(n *node, key string) (int64, error) {
	if n.kind != kindScalar || n.quoted || n.null {
		return 0, d.errf(n, key, "want an integer")
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(n.str, "_", ""), 10, 64)
	if err != nil {
		return 0, d.errf(n, key, "want an integer, got %q", n.str)
	}
	return v, nil
}

func (d *decoder) boolean(n *node, key string) (bool, error) {
	if n.kind == kindScalar && !n.quoted {
		switch n.str {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return false, d.errf(n, key, "want true or false")
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
	if n.kind != kindScalar || n.null {
		return TTL{}, d.errf(n, key, "want a TTL: seconds, NO_CACHE, NO_EXPIRE or EXPIRE_IF_REVERSIBLE")
	}
	t, err := parseTTL(n.str)
	if err != nil {
		return TTL{}, d.errf(n, key, "%v", err)
	}
	return t, nil
}

func (d *decoder) timeout(n *node, key string) (time.Duration, error) {
	v, err := d.integer(n, key)
	if err != nil {
		return 0, d.errf(n, key, "want a timeout in whole seconds (0 = none)")
	}
	if v < 0 {
		return 0, d.errf(n, key, "timeout %d is negative: use 0 for no timeout", v)
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
