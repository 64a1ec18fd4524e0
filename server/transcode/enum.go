package transcode

import (
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hivegate/hivegate/jsonwire"
)

// enumPlan maps an enum's values to and from hived's names.
type enumPlan struct {
	byName map[string]protoreflect.EnumNumber
	// names holds each value's quoted hived name, ready to append; a value
	// without a hived name (the *_UNSPECIFIED zero) is absent from it.
	names map[protoreflect.EnumNumber][]byte
	// nullValue is set for google.protobuf.NullValue, written as null.
	nullValue bool
}

// enumPlan returns the cached plan of ed.
func (c *Codec) enumPlan(ed protoreflect.EnumDescriptor) *enumPlan {
	if p, ok := c.enums.Load(ed); ok {
		return p.(*enumPlan)
	}
	p := buildEnumPlan(ed)
	actual, _ := c.enums.LoadOrStore(ed, p)
	return actual.(*enumPlan)
}

// buildEnumPlan computes hived names: the (hivegate.v1.hived_name) option, or
// the value name without the enum's UPPER_SNAKE prefix, lowercased
// (LIST_ACCOUNTS_ORDER_BY_NAME of ListAccountsOrder is "by_name"). The zero
// value named *_UNSPECIFIED has no hived name unless the option gives one.
func buildEnumPlan(ed protoreflect.EnumDescriptor) *enumPlan {
	p := &enumPlan{
		byName:    map[string]protoreflect.EnumNumber{},
		names:     map[protoreflect.EnumNumber][]byte{},
		nullValue: ed.FullName() == "google.protobuf.NullValue",
	}
	prefix := upperSnake(string(ed.Name())) + "_"
	vals := ed.Values()
	for i := range vals.Len() {
		v := vals.Get(i)
		name := string(v.Name())
		var hived string
		if o := readOption(v.Options(), optHivedName); o.ok && o.str != "" {
			hived = o.str
		} else if v.Number() == 0 && strings.HasSuffix(name, "_UNSPECIFIED") {
			continue
		} else {
			hived = strings.ToLower(strings.TrimPrefix(name, prefix))
		}
		if _, dup := p.byName[hived]; !dup {
			p.byName[hived] = v.Number()
		}
		if _, dup := p.names[v.Number()]; !dup {
			p.names[v.Number()] = jsonwire.AppendString(nil, hived)
		}
	}
	return p
}

// upperSnake converts a CamelCase name to UPPER_SNAKE_CASE the way buf's
// ENUM_VALUE_PREFIX rule expects ("ListAccountsOrder" -> "LIST_ACCOUNTS_ORDER",
// "HTTPStatus" -> "HTTP_STATUS").
func upperSnake(s string) string {
	var b strings.Builder
	for i := range len(s) {
		c := s[i]
		if isUpper(c) && i > 0 {
			prev := s[i-1]
			nextLower := i+1 < len(s) && isLower(s[i+1])
			if isLower(prev) || isDigit(prev) || (isUpper(prev) && nextLower) {
				b.WriteByte('_')
			}
		}
		if isLower(c) {
			c -= 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
