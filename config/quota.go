package config

// The `quotas:` section (issue 30 item 5), declared in this file so that it
// can move as one piece: quotas per client address and per API key,
// weighted by method. The hooks elsewhere in the package are one field of
// Config (config.go), the `key_sha256` kind (decode.go), the section's
// defaults (default.go), the `quota` key of an auth app (auth.go) and one
// call in Config.validate (validate.go). YAML only: jussi's JSON format has
// no quotas.

import (
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// QuotaSettings are the `quotas:` section: weighted call quotas per client
// address and per API key, enforced by package quota. Off unless a class
// is given to something: per_address, a key, or an auth app
// (auth.apps[].quota).
type QuotaSettings struct {
	// Classes are the named limits (quotas.classes, NAME → {limit, period,
	// burst}): a class allows Limit weight units per Period, at most Burst
	// at once.
	Classes []QuotaClass `yaml:"classes"`
	// PerAddress names the class every client address is held to when its
	// request carries no API key (quotas.per_address); empty: addresses
	// are not limited.
	PerAddress string `yaml:"per_address"`
	// KeyHeader is the request header a client sends its API key in
	// (quotas.key_header, default X-Api-Key).
	KeyHeader string `yaml:"key_header" as:"header"`
	// DefaultWeight is the weight of a call no weights entry matches
	// (quotas.default_weight, default 1).
	DefaultWeight int `yaml:"default_weight" range:"0..1000000"`
	// Weights are method key → weight (quotas.weights), resolved most
	// specific first as ttls are; 0 makes a call free.
	Weights []Entry[int] `yaml:"weights" range:"0..1000000"`
	// Keys are the static API keys (quotas.keys, NAME → {sha256, class}).
	Keys []QuotaKey `yaml:"keys"`
	// Pos is where the section was given (zero when it was not).
	Pos Pos
}

// QuotaClass is one named limit of quotas.classes.
type QuotaClass struct {
	// Name is the class's name (the map key under quotas.classes).
	Name string
	// Limit is the weight units allowed per Period (quotas.classes.NAME.limit).
	Limit int `yaml:"limit" range:"1..1000000000"`
	// Period is the window Limit is counted over (quotas.classes.NAME.period,
	// seconds or a duration, default 60 s).
	Period time.Duration `yaml:"period" as:"seconds" range:"1s..24h"`
	// Burst is the weight units a subject may spend at once after being
	// idle (quotas.classes.NAME.burst, default Limit). A call weighing
	// more than Burst costs Burst.
	Burst int `yaml:"burst" range:"1..1000000000"`
	// Pos is where the class's name was written.
	Pos Pos
}

// QuotaKey is one static API key of quotas.keys. The key itself is never
// in the config: only its sha256, as auth's secret_sha256.
type QuotaKey struct {
	// Name names the key in metrics and logs (the map key under quotas.keys).
	Name string
	// SHA256 is the lowercase hex sha256 of the key (quotas.keys.NAME.sha256).
	SHA256 string `yaml:"sha256" as:"key_sha256"`
	// Class is the class the key is held to (quotas.keys.NAME.class).
	Class string `yaml:"class"`
	// Pos is where the key's name was written.
	Pos Pos
}

// Defaults of the quotas section (default.go).
const (
	DefaultQuotaKeyHeader = "X-Api-Key"
	DefaultQuotaWeight    = 1
	DefaultQuotaPeriod    = time.Minute
)

// QuotasEnabled reports whether any call can be limited: a class is given to
// client addresses, to a static key, or to an auth app.
func (c *Config) QuotasEnabled() bool {
	if c.Quotas.PerAddress != "" || len(c.Quotas.Keys) > 0 {
		return true
	}
	for _, a := range c.Auth.Apps {
		if a.Quota != "" {
			return true
		}
	}
	return false
}

// Class returns the class of a name.
func (q QuotaSettings) Class(name string) (QuotaClass, bool) {
	for _, c := range q.Classes {
		if c.Name == name {
			return c, true
		}
	}
	return QuotaClass{}, false
}

// nullable: `quotas:` alone is the section given empty.
func (*QuotaSettings) nullable() {}

// setKey makes c the class named key (quotas.classes is a mapping of
// names).
func (c *QuotaClass) setKey(key string, pos, _ Pos) reflect.Value {
	c.Name, c.Pos = key, pos
	return reflect.ValueOf(c).Elem()
}

// setKey makes k the API key named key (quotas.keys is a mapping of
// names).
func (k *QuotaKey) setKey(key string, pos, _ Pos) reflect.Value {
	k.Name, k.Pos = key, pos
	return reflect.ValueOf(k).Elem()
}

// keyDigest is quotas.keys.NAME.sha256: the hex sha256 of an API key,
// stored lower case. A value that is not 64 characters long may be the
// key itself, so it is never repeated.
type keyDigest string

func (k *keyDigest) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && len(n.Value) != 64 {
		return fmt.Errorf("want the hex sha256 of the key (64 digits), never the key itself (the value, %d characters, is not repeated here)", len(n.Value))
	}
	s, err := str(n)
	if err != nil {
		return err
	}
	s = strings.ToLower(s)
	if _, err := hex.DecodeString(s); err != nil {
		return errors.New("want the hex sha256 of the key (64 digits)")
	}
	*k = keyDigest(s)
	return nil
}

// validate checks the quotas section as a whole: names, required keys,
// defaults that depend on other keys, and that every class named within
// the section exists. Auth apps' classes are checked by checkQuotaApps.
func (q *QuotaSettings) validate(d *decoder, path string) error {
	q.Pos = d.pos(d.keyAt(path))
	if n := d.at(path + ".key_header"); n != nil {
		switch {
		case q.KeyHeader == "":
			return d.errf(n, path+".key_header", "empty: name the header clients send their API key in (default %s)", DefaultQuotaKeyHeader)
		case strings.EqualFold(q.KeyHeader, "Authorization"):
			return d.errf(n, path+".key_header", "Authorization carries the auth service's tokens (an app's token counts against its auth.apps[].quota); give API keys a header of their own")
		}
	}
	for i := range q.Classes {
		c := &q.Classes[i]
		cp := path + ".classes." + c.Name
		switch {
		case !validQuotaName(c.Name):
			return &Error{Pos: c.Pos, Key: cp, Err: errors.New("want a name of letters, digits, '_', '-' and '.'")}
		case c.Limit == 0:
			return d.errf(d.at(cp), cp+".limit", "required: the weight units allowed per period (a call weighs quotas.default_weight unless quotas.weights says otherwise)")
		}
		if c.Burst == 0 {
			c.Burst = c.Limit
		}
	}
	if err := noDuplicates(q.Weights, path+".weights"); err != nil {
		return err
	}
	seen := map[string]string{}
	for _, k := range q.Keys {
		kp := path + ".keys." + k.Name
		switch {
		case !validQuotaName(k.Name):
			return &Error{Pos: k.Pos, Key: kp, Err: errors.New("want a name of letters, digits, '_', '-' and '.' (it names the key in metrics and logs)")}
		case k.SHA256 == "":
			return d.errf(d.at(kp), kp+".sha256", "required: the hex sha256 of the key (printf %%s KEY | sha256sum)")
		case k.Class == "":
			return d.errf(d.at(kp), kp+".class", "required: the quotas.classes entry the key is held to")
		}
		if prev, dup := seen[k.SHA256]; dup {
			return &Error{Pos: k.Pos, Key: kp + ".sha256", Err: fmt.Errorf("the same key as quotas.keys.%s: every key needs its own", prev)}
		}
		seen[k.SHA256] = k.Name
	}
	if q.PerAddress != "" {
		if err := q.unknownClass(d.pos(d.at(path+".per_address")), path+".per_address", q.PerAddress); err != nil {
			return err
		}
	}
	for _, k := range q.Keys {
		if err := q.unknownClass(k.Pos, path+".keys."+k.Name+".class", k.Class); err != nil {
			return err
		}
	}
	return nil
}

// checkQuotaApps checks the rules of the quotas section that involve the
// auth section: every auth.apps[].quota names a class, and classes given to
// nothing earn a warning. Config.validate calls it, for both formats.
func (c *Config) checkQuotaApps(d *decoder) error {
	for i, a := range c.Auth.Apps {
		if a.Quota == "" {
			continue
		}
		key := fmt.Sprintf("auth.apps[%d].quota", i)
		if err := c.Quotas.unknownClass(d.pos(d.at(key)), key, a.Quota); err != nil {
			return err
		}
	}
	if len(c.Quotas.Classes) > 0 && !c.QuotasEnabled() {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: quotas: no class is given to anything (quotas.per_address, quotas.keys, auth.apps[].quota): nothing is limited", c.Quotas.Pos))
	}
	return nil
}

// unknownClass is the error of a class name that quotas.classes does not
// declare, written at pos under key; nil when it does.
func (q *QuotaSettings) unknownClass(pos Pos, key, class string) error {
	if _, ok := q.Class(class); ok {
		return nil
	}
	list := "none: add a quotas.classes section"
	if len(q.Classes) > 0 {
		names := make([]string, len(q.Classes))
		for i, cl := range q.Classes {
			names[i] = cl.Name
		}
		list = strings.Join(names, ", ")
	}
	return &Error{Pos: pos, Key: key, Err: fmt.Errorf("unknown quota class %q (quotas.classes: %s)", class, list)}
}

// validQuotaName reports a class or key name: it becomes a metrics label
// value and appears in client error messages.
func validQuotaName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}
