package hivesim

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Argument handling of hivemind, whose checks and messages differ from hived's.

var accountChars = regexp.MustCompile(`^[a-z0-9\-.]+$`)

// hmParams maps positional or named params onto names (hivemind accepts both).
func (c *callCtx) hmParams(p any, names ...string) (map[string]any, *rpcError) {
	switch x := p.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return x, nil
	case []any:
		if len(x) > len(names) {
			return nil, c.hivemindError("too many positional arguments")
		}
		m := make(map[string]any, len(x))
		for i, v := range x {
			m[names[i]] = v
		}
		return m, nil
	}
	return nil, c.hivemindError("invalid params type")
}

// hmAccount is hivemind's valid_account.
func (c *callCtx) hmAccount(v any, allowEmpty bool) (string, *rpcError) {
	s, ok := v.(string)
	var msg string
	switch {
	case !ok && v == nil && allowEmpty, ok && s == "" && allowEmpty:
		return "", nil
	case !ok:
		msg = "invalid account name type"
	case s == "":
		msg = "invalid account (not specified)"
	case len(s) < 3 || len(s) > 16:
		msg = "invalid account name length: `" + s + "`"
	case s[0] == '@':
		msg = "invalid account name char `@`"
	case !accountChars.MatchString(s):
		msg = "invalid account char"
	default:
		return s, nil
	}
	return "", c.hivemindError(msg)
}

// hmPermlink is hivemind's valid_permlink.
func (c *callCtx) hmPermlink(v any, allowEmpty bool) (string, *rpcError) {
	s, ok := v.(string)
	switch {
	case !ok && v == nil && allowEmpty:
		return "", nil
	case !ok:
		return "", c.hivemindError("permlink must be string")
	case s == "" && !allowEmpty:
		return "", c.hivemindError("permlink cannot be blank")
	case len(s) > 256:
		return "", c.hivemindError("invalid permlink length")
	}
	return s, nil
}

// hmPost finds a comment or fails with "Post a/p does not exist".
func (c *callCtx) hmPost(author, permlink string) (*Comment, *rpcError) {
	if cm := c.n.ch.social.byKey[author+"/"+permlink]; cm != nil {
		return cm, nil
	}
	return nil, c.hivemindError("Post " + author + "/" + permlink + " does not exist")
}

// hmDate is hivemind's valid_date: "Y-m-d H:M:S" or "Y-m-dTH:M:S".
func (c *callCtx) hmDate(v any) time.Time {
	s, _ := v.(string)
	c.failIf(s == "", "Date is blank")
	for _, layout := range []string{"2006-01-02 15:04:05", timeLayout} {
		if t, err := time.Parse(layout, s); err == nil {
			return time.Unix(int64(uint32(t.Unix())), 0).UTC()
		}
	}
	c.fail("Date should be in format Y-m-d H:M:S or Y-m-dTH:M:S")
	return time.Time{}
}

// startPost resolves an optional page-start post (both parts empty = none).
func (c *callCtx) startPost(authorV, permlinkV any) *Comment {
	author, permlink := need(c.hmAccount(authorV, true)), need(c.hmPermlink(permlinkV, true))
	if author == "" && permlink == "" {
		return nil
	}
	return need(c.hmPost(author, permlink))
}

// Argument reading that raises, as hivemind's Python did: a failed check
// aborts the call with its error, so a method reads its arguments in the
// order the real server checks them, one line each.

// abortCall carries a call's error from a failed check to raising.
type abortCall struct{ err *rpcError }

// need returns v, or aborts the call with err.
func need[T any](v T, err *rpcError) T {
	if err != nil {
		panic(abortCall{err})
	}
	return v
}

// raising turns a method that aborts on errors into a methodFunc.
func raising(fn func(c *callCtx, p any, w *jw)) methodFunc {
	return func(c *callCtx, p any, w *jw) (err *rpcError) {
		defer func() {
			if r := recover(); r != nil {
				a, ok := r.(abortCall)
				if !ok {
					panic(r)
				}
				err = a.err
			}
		}()
		fn(c, p, w)
		return nil
	}
}

// mindR adds a raising hivemind method.
func (r registry) mindR(name string, fn func(c *callCtx, p any, w *jw)) { r.mind(name, raising(fn)) }

// hivedR adds a raising hived method.
func (r registry) hivedR(name string, fn func(c *callCtx, p any, w *jw)) { r.hived(name, raising(fn)) }

// hmArgs are a hivemind call's arguments by name.
type hmArgs struct {
	c *callCtx
	m map[string]any
}

// args maps positional or named params onto names.
func (c *callCtx) args(p any, names ...string) hmArgs {
	return hmArgs{c, need(c.hmParams(p, names...))}
}

// fail aborts with hivemind's assert.
func (c *callCtx) fail(msg string) { panic(abortCall{c.hivemindError(msg)}) }

// failIf aborts with msg when bad.
func (c *callCtx) failIf(bad bool, msg string) {
	if bad {
		c.fail(msg)
	}
}

func (a hmArgs) str(k string) string { s, _ := a.m[k].(string); return s }

// required is the argument k, which must be present.
func (a hmArgs) required(k string) any {
	v, ok := a.m[k]
	a.c.failIf(!ok, "missing a required argument: '"+k+"'")
	return v
}

// account is valid_account(k); opt allows an empty one.
func (a hmArgs) account(k string, opt bool) string { return need(a.c.hmAccount(a.m[k], opt)) }

// existing is a valid account that exists.
func (a hmArgs) existing(k string) string { return a.c.existing(a.m[k]) }

func (c *callCtx) existing(v any) string {
	name := need(c.hmAccount(v, false))
	c.failIf(c.n.ch.byName[name] == nil, "Account "+name+" does not exist")
	return name
}

// post is the post named by the author and permlink arguments.
func (a hmArgs) post(authorK, permlinkK string) *Comment {
	return a.c.post(a.m[authorK], a.m[permlinkK])
}

func (c *callCtx) post(author, permlink any) *Comment {
	au := need(c.hmAccount(author, false))
	return need(c.hmPost(au, need(c.hmPermlink(permlink, false))))
}

// startPost is the optional page-start post.
func (a hmArgs) startPost(authorK, permlinkK string) *Comment {
	return a.c.startPost(a.m[authorK], a.m[permlinkK])
}

// limit is valid_limit(k, max, def).
func (a hmArgs) limit(k string, def, max int64) int {
	var n int64
	switch x := a.m[k].(type) {
	case nil:
		return int(def)
	case bool:
		if x {
			n = 1
		}
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		a.c.failIf(err != nil || math.IsInf(f, 0), "invalid literal for int() with base 10: '"+string(x)+"'")
		n = int64(f)
	case string:
		i, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		a.c.failIf(err != nil, "invalid literal for int() with base 10: '"+x+"'")
		n = i
	default:
		a.c.fail("invalid limit type")
	}
	return int(a.c.inRange(n, 1, max, "limit"))
}

// number is valid_number(k, def, lo, hi) named what.
func (a hmArgs) number(k string, def, lo, hi int64, what string) int64 {
	v := a.m[k]
	if v == nil {
		return def
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case interface{ String() string }:
		s = x.String()
	}
	n, err := strconv.ParseInt(s, 10, 64)
	a.c.failIf(err != nil, "invalid "+what+" type")
	return a.c.inRange(n, lo, hi, what)
}

// inRange is n, which must lie in [lo:hi].
func (c *callCtx) inRange(n, lo, hi int64, what string) int64 {
	c.failIf(n < lo || n > hi, fmt.Sprintf("%s = %d outside valid range [%d:%d]", what, n, lo, hi))
	return n
}

// oneOf checks that k is one of set, else fails with "Unsupported <what>,
// valid <what>s: ...".
func (a hmArgs) oneOf(k, what string, set []string) string {
	s := a.str(k)
	a.c.failIf(!slices.Contains(set, s), "Unsupported "+what+", valid "+what+"s: "+strings.Join(set, ", "))
	return s
}

// truncate decodes truncate_body (an int in Python's sense).
func (a hmArgs) truncate() int {
	switch x := a.m["truncate_body"].(type) {
	case nil:
		return 0
	case json.Number:
		n, err := x.Int64()
		a.c.failIf(err != nil, "invalid literal for int() with base 10: '"+string(x)+"'")
		return int(n)
	case string:
		a.c.fail("invalid literal for int() with base 10: '" + x + "'")
	}
	a.c.fail("invalid truncate_body type")
	return 0
}

// community finds the community named by k or fails as hivemind does.
func (a hmArgs) community(k string) *Community {
	name := a.str(k)
	a.c.failIf(!strings.HasPrefix(name, "hive-"), "given community name is not valid")
	cm := a.c.n.ch.extra.communityByName[name]
	a.c.failIf(cm == nil, "Given community name "+name+" does not exist")
	return cm
}

// hmTime is hivemind's "YYYY-MM-DD HH:MM:SS" time form.
func hmTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }
