package hivesim

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
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

// hmRequired fails like Python when a required argument is missing.
func (c *callCtx) hmRequired(m map[string]any, name string) (any, *rpcError) {
	v, ok := m[name]
	if !ok {
		return nil, c.hivemindError("missing a required argument: '" + name + "'")
	}
	return v, nil
}

// hmAccount is hivemind's valid_account.
func (c *callCtx) hmAccount(v any, allowEmpty bool) (string, *rpcError) {
	s, ok := v.(string)
	if !ok {
		if v == nil && allowEmpty {
			return "", nil
		}
		return "", c.hivemindError("invalid account name type")
	}
	if s == "" {
		if allowEmpty {
			return "", nil
		}
		return "", c.hivemindError("invalid account (not specified)")
	}
	if len(s) < 3 || len(s) > 16 {
		return "", c.hivemindError("invalid account name length: `" + s + "`")
	}
	if s[0] == '@' {
		return "", c.hivemindError("invalid account name char `@`")
	}
	if !accountChars.MatchString(s) {
		return "", c.hivemindError("invalid account char")
	}
	return s, nil
}

// hmExisting checks that the account exists.
func (c *callCtx) hmExisting(name string) *rpcError {
	if c.n.ch.byName[name] == nil {
		return c.hivemindError("Account " + name + " does not exist")
	}
	return nil
}

// hmPermlink is hivemind's valid_permlink.
func (c *callCtx) hmPermlink(v any, allowEmpty bool) (string, *rpcError) {
	s, ok := v.(string)
	if !ok {
		if v == nil && allowEmpty {
			return "", nil
		}
		return "", c.hivemindError("permlink must be string")
	}
	if s == "" && !allowEmpty {
		return "", c.hivemindError("permlink cannot be blank")
	}
	if len(s) > 256 {
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

// hmLimit is hivemind's valid_limit: missing/null gives def, the range is [1:max].
func (c *callCtx) hmLimit(v any, max, def int64) (int64, *rpcError) {
	var n int64
	switch x := v.(type) {
	case nil:
		return def, nil
	case bool:
		if x {
			n = 1
		}
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(f, 0) {
			return 0, c.hivemindError("invalid literal for int() with base 10: '" + string(x) + "'")
		}
		n = int64(f)
	case string:
		i, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		if err != nil {
			return 0, c.hivemindError("invalid literal for int() with base 10: '" + x + "'")
		}
		n = i
	default:
		return 0, c.hivemindError("invalid limit type")
	}
	if n < 1 || n > max {
		return 0, c.hivemindError(fmt.Sprintf("limit = %d outside valid range [1:%d]", n, max))
	}
	return n, nil
}

// hmDate is hivemind's valid_date: "Y-m-d H:M:S" or "Y-m-dTH:M:S".
func (c *callCtx) hmDate(v any) (time.Time, *rpcError) {
	s, _ := v.(string)
	if s == "" {
		return time.Time{}, c.hivemindError("Date is blank")
	}
	for _, layout := range []string{"2006-01-02 15:04:05", timeLayout} {
		if t, err := time.Parse(layout, s); err == nil {
			return time.Unix(int64(uint32(t.Unix())), 0).UTC(), nil
		}
	}
	return time.Time{}, c.hivemindError("Date should be in format Y-m-d H:M:S or Y-m-dTH:M:S")
}

// hmStartPost resolves an optional page-start post (both parts empty = none).
func (c *callCtx) hmStartPost(authorV, permlinkV any) (*Comment, *rpcError) {
	author, err := c.hmAccount(authorV, true)
	if err != nil {
		return nil, err
	}
	permlink, err := c.hmPermlink(permlinkV, true)
	if err != nil {
		return nil, err
	}
	if author == "" && permlink == "" {
		return nil, nil
	}
	return c.hmPost(author, permlink)
}
