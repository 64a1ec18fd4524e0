package jsonwire

// Iter walks the members of an object or the elements of an array without
// decoding them, checking the syntax as it goes: the input is read once,
// and a value the caller does not look at is skipped (and checked). Create
// one with Members or Elements; it allocates nothing.
//
//	it := jsonwire.Members(data, 0, 64)
//	for it.Next() {
//		if jsonwire.EqualString(it.Name(), "id") {
//			id := it.Value() // nil when the value is not valid
//		}
//	}
//	if err := it.Err(); err != nil { ... }
//	end := it.End() // just after the closing brace
//
// A caller that walks a value itself (with a nested Iter, for instance)
// starts at Offset with the limit Depth, and then tells where the value
// ended with SetValueEnd, so that the input is still read once.
type Iter struct {
	data   []byte
	pos    int // where the scan goes on (the value start while in a value)
	depth  int // the limit for values: one less than the container's
	obj    bool
	state  uint8
	name   []byte
	vstart int
	vend   int // -1 until the value has been read
	end    int
	err    error
}

// Iter states.
const (
	iterStart uint8 = iota // before the first member
	iterValue              // on a member or element
	iterDone               // at the end or on an error
)

// Members returns an Iter over the members of the object that starts at
// data[i] (after optional whitespace), which may be nested maxDepth levels
// deep, itself included.
func Members(data []byte, i, maxDepth int) Iter {
	return newIter(data, i, maxDepth, true)
}

// Elements returns an Iter over the elements of the array that starts at
// data[i] (after optional whitespace), which may be nested maxDepth levels
// deep, itself included.
func Elements(data []byte, i, maxDepth int) Iter {
	return newIter(data, i, maxDepth, false)
}

func newIter(data []byte, i, maxDepth int, obj bool) Iter {
	i = SkipSpace(data, i)
	open := byte('[')
	if obj {
		open = '{'
	}
	if i < len(data) && data[i] == open && maxDepth >= 1 {
		return Iter{data: data, pos: i + 1, depth: maxDepth - 1, obj: obj, vend: -1}
	}
	return badIter(data, i, maxDepth, obj)
}

// badIter is an Iter that failed at once: data[i] does not open the
// container wanted, or maxDepth leaves no room for it.
func badIter(data []byte, i, maxDepth int, obj bool) Iter {
	it := Iter{data: data, obj: obj, vend: -1}
	switch {
	case i >= len(data) || data[i] != closer(obj)-2: // '}'-2 is '{', ']'-2 is '['
		want := "an array"
		if obj {
			want = "an object"
		}
		it.fail(unexpected(data, i, want))
	default:
		it.fail(tooDeep(i, maxDepth))
	}
	return it
}

func (it *Iter) fail(err error) {
	it.err, it.state = err, iterDone
}

// Next advances to the next member or element and reports whether there is
// one. It returns false at the end of the container and on an error (see
// Err).
func (it *Iter) Next() bool {
	var i int
	switch it.state {
	case iterDone:
		return false
	case iterStart:
		i = SkipSpace(it.data, it.pos)
		if i < len(it.data) && it.data[i] == closer(it.obj) {
			it.state, it.end = iterDone, i+1
			return false
		}
	default:
		if it.vend < 0 && it.Value() == nil {
			return false
		}
		i = SkipSpace(it.data, it.vend)
		switch {
		case i < len(it.data) && it.data[i] == ',':
			i = SkipSpace(it.data, i+1)
		case i < len(it.data) && it.data[i] == closer(it.obj):
			it.state, it.end = iterDone, i+1
			return false
		default:
			it.fail(unexpected(it.data, i, afterValue(it.obj)))
			return false
		}
	}
	if it.obj {
		end, _, err := ScanString(it.data, i)
		if err != nil {
			if i >= len(it.data) || it.data[i] != '"' {
				err = unexpected(it.data, i, "a member name")
			}
			it.fail(err)
			return false
		}
		it.name = it.data[i:end]
		i = SkipSpace(it.data, end)
		if i >= len(it.data) || it.data[i] != ':' {
			it.fail(unexpected(it.data, i, "':' after object key"))
			return false
		}
		i = SkipSpace(it.data, i+1)
	}
	it.state, it.vstart, it.vend = iterValue, i, -1
	return true
}

// Name returns the current member's name as a raw string literal, quotes
// included (compare it with EqualString, decode it with Unquote); nil for
// an array element.
func (it *Iter) Name() []byte {
	if !it.obj || it.state != iterValue {
		return nil
	}
	return it.name
}

// Value returns the current member's or element's raw value bytes, checked;
// nil when the value is not valid JSON (see Err).
func (it *Iter) Value() []byte {
	if it.state != iterValue {
		return nil
	}
	if it.vend < 0 {
		end, err := Skip(it.data, it.vstart, it.depth)
		if err != nil {
			it.fail(err)
			return nil
		}
		it.vend = end
	}
	return it.data[it.vstart:it.vend]
}

// Offset returns the index in the input where the current value starts.
func (it *Iter) Offset() int { return it.vstart }

// Depth returns how deep the current value may be nested.
func (it *Iter) Depth() int { return it.depth }

// SetValueEnd tells the Iter that the caller has read the current value
// itself (starting at Offset, within Depth) and that it ends at end, so
// that Next goes on from there without reading it again.
func (it *Iter) SetValueEnd(end int) {
	if it.state == iterValue {
		it.vend = end
	}
}

// Err returns the error that stopped the walk, or nil.
func (it *Iter) Err() error { return it.err }

// End returns the index just after the container's closing bracket, once
// Next has returned false without an error.
func (it *Iter) End() int { return it.end }

// Member returns the raw value of the member of the object obj named name
// (compared as EqualString does) and whether there is one; of duplicates,
// the last is returned, as encoding/json keeps the last. The whole object
// is checked: err is set when it is not a valid object within maxDepth.
func Member(obj []byte, name string, maxDepth int) (value []byte, found bool, err error) {
	it := Members(obj, 0, maxDepth)
	for it.Next() {
		if EqualString(it.Name(), name) {
			value, found = it.Value(), true
		}
	}
	if it.err != nil {
		return nil, false, it.err
	}
	return value, found, nil
}
