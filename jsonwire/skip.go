package jsonwire

// MaxDepth is the deepest nesting the canonical form accepts, and the
// greatest limit hivegate's configuration allows (limits.max_json_depth).
const MaxDepth = 1000

// Valid checks that data is one JSON value, with optional whitespace around
// it, nested no deeper than maxDepth. It returns nil or an *Error wrapping
// ErrInvalid or ErrTooDeep (see the package documentation for which).
func Valid(data []byte, maxDepth int) error {
	end, err := Skip(data, 0, maxDepth)
	if err != nil {
		return err
	}
	if i := SkipSpace(data, end); i != len(data) {
		return syntaxError(i, "invalid character %q after top-level value", data[i])
	}
	return nil
}

// Skip checks the value that starts at data[i], after optional whitespace,
// and returns the index just after it. The value may be nested maxDepth
// levels deep. Whatever follows the value is not looked at.
func Skip(data []byte, i, maxDepth int) (int, error) {
	i = SkipSpace(data, i)
	if i < len(data) && data[i] != '{' && data[i] != '[' {
		return scanScalar(data, i)
	}
	return skipNested(data, i, maxDepth)
}

// stack records which containers are open: a bit per level, set for an
// object. The first 1024 levels live in the array.
type stack struct {
	depth int
	small [16]uint64
	more  []uint64
}

func (s *stack) push(obj bool) {
	w, bit := s.depth/64, uint64(1)<<(s.depth%64)
	s.depth++
	if w >= len(s.small) {
		w -= len(s.small)
		if w >= len(s.more) {
			s.more = append(s.more, 0)
		}
		if obj {
			s.more[w] |= bit
		} else {
			s.more[w] &^= bit
		}
		return
	}
	if obj {
		s.small[w] |= bit
	} else {
		s.small[w] &^= bit
	}
}

// top reports whether the innermost open container is an object.
func (s *stack) top() bool {
	d := s.depth - 1
	w, bit := d/64, uint64(1)<<(d%64)
	if w >= len(s.small) {
		return s.more[w-len(s.small)]&bit != 0
	}
	return s.small[w]&bit != 0
}

func closer(obj bool) byte {
	if obj {
		return '}'
	}
	return ']'
}

// skipNested is Skip for any value, in one pass without recursion.
func skipNested(b []byte, i, maxDepth int) (int, error) {
	var st stack
	var err error
	for {
		// A value starts at i, after whitespace.
		i = SkipSpace(b, i)
		if i >= len(b) {
			return i, syntaxError(i, "unexpected end of JSON input")
		}
		if c := b[i]; c == '{' || c == '[' {
			if st.depth >= maxDepth {
				return i, tooDeep(i, maxDepth)
			}
			obj := c == '{'
			st.push(obj)
			i = SkipSpace(b, i+1)
			if i < len(b) && b[i] == closer(obj) {
				st.depth--
				i++
			} else {
				if obj {
					if i, err = scanName(b, i); err != nil {
						return i, err
					}
				}
				continue
			}
		} else if i, err = scanScalar(b, i); err != nil {
			return i, err
		}
		// A value ended at i: close containers, or go on to the next
		// element or member.
		for {
			if st.depth == 0 {
				return i, nil
			}
			i = SkipSpace(b, i)
			obj := st.top()
			if i < len(b) && b[i] == ',' {
				if obj {
					if i, err = scanName(b, SkipSpace(b, i+1)); err != nil {
						return i, err
					}
				} else {
					i++
				}
				break
			}
			if i >= len(b) || b[i] != closer(obj) {
				return i, unexpected(b, i, afterValue(obj))
			}
			st.depth--
			i++
		}
	}
}

// afterValue is what may follow a value in an object or an array.
func afterValue(obj bool) string {
	if obj {
		return "',' or '}'"
	}
	return "',' or ']'"
}

// scanName checks `"name" :` starting at b[i] and returns the index after
// the colon.
func scanName(b []byte, i int) (int, error) {
	if i >= len(b) || b[i] != '"' {
		return i, unexpected(b, i, "a member name")
	}
	i, _, err := ScanString(b, i)
	if err != nil {
		return i, err
	}
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return i, unexpected(b, i, "':' after object key")
	}
	return i + 1, nil
}
