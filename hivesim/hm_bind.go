package hivesim

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

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
func (a hmArgs) required(k string) any { return need(a.c.hmRequired(a.m, k)) }

// account is valid_account(k); opt allows an empty one.
func (a hmArgs) account(k string, opt bool) string { return need(a.c.hmAccount(a.m[k], opt)) }

// existing is a valid account that exists.
func (a hmArgs) existing(k string) string { return a.c.existing(a.m[k]) }

func (c *callCtx) existing(v any) string {
	name := need(c.hmAccount(v, false))
	need(0, c.hmExisting(name))
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
	return need(a.c.hmStartPost(a.m[authorK], a.m[permlinkK]))
}

// limit is valid_limit(k, max, def).
func (a hmArgs) limit(k string, def, max int64) int { return int(need(a.c.hmLimit(a.m[k], max, def))) }

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
	a.c.failIf(n < lo || n > hi, what+" = "+strconv.FormatInt(n, 10)+" outside valid range ["+
		strconv.FormatInt(lo, 10)+":"+strconv.FormatInt(hi, 10)+"]")
	return n
}

// oneOf checks that k is one of set, else fails with msg (default:
// "Unsupported <what>, valid <what>s: ...").
func (a hmArgs) oneOf(k, what string, set []string) string {
	s := a.str(k)
	a.c.failIf(!slices.Contains(set, s), "Unsupported "+what+", valid "+what+"s: "+strings.Join(set, ", "))
	return s
}

// truncate decodes truncate_body (an int in Python's sense).
func (a hmArgs) truncate() int { return need(a.c.hmTruncate(a.m["truncate_body"])) }

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
