package config

// The `quotas:` section (issue 30 item 5), self-contained in this file so
// that it can move as one piece: quotas per client address and per API key,
// weighted by method. The hooks elsewhere in the package are one field of
// Config (config.go), one case in modernFrom (modern.go), one call in
// validate (validate.go) and the `quota` key of an auth app (auth.go).

import (
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// QuotaSettings are the `quotas:` section: weighted call quotas per client
// address and per API key, enforced by package quota. Off unless a class
// is given to something: per_address, a key, or an auth app
// (auth.apps[].quota).
type QuotaSettings struct {
	// Classes are the named limits (quotas.classes): a class allows Limit
	// weight units per Period, at most Burst at once.
	Classes []QuotaClass
	// PerAddress names the class every client address is held to when its
	// request carries no API key (quotas.per_address); empty: addresses
	// are not limited.
	PerAddress string
	// KeyHeader is the request header a client sends its API key in
	// (quotas.key_header, default X-Api-Key).
	KeyHeader string
	// DefaultWeight is the weight of a call no weights entry matches
	// (quotas.default_weight, default 1).
	DefaultWeight int
	// Weights are method key → weight (quotas.weights), resolved most
	// specific first as ttls are; 0 makes a call free.
	Weights []Entry[int]
	// Keys are the static API keys (quotas.keys).
	Keys []QuotaKey
	// Pos is where the section was given (zero when it was not).
	Pos Pos

	perAddressPos Pos
}

// QuotaClass is one named limit of quotas.classes.
type QuotaClass struct {
	Name string
	// Limit is the weight units allowed per Period (quotas.classes.NAME.limit).
	Limit int
	// Period is the window Limit is counted over (quotas.classes.NAME.period,
	// default 60 s).
	Period time.Duration
	// Burst is the weight units a subject may spend at once after being
	// idle (quotas.classes.NAME.burst, default Limit). A call weighing
	// more than Burst costs Burst.
	Burst int
	Pos   Pos
}

// QuotaKey is one static API key of quotas.keys. The key itself is never
// in the config: only its sha256, as auth's secret_sha256.
type QuotaKey struct {
	// Name names the key in metrics and logs (the map key under quotas.keys).
	Name string
	// SHA256 is the lowercase hex sha256 of the key (quotas.keys.NAME.sha256).
	SHA256 string
	// Class is the class the key is held to (quotas.keys.NAME.class).
	Class string
	Pos   Pos
}

// Defaults and bounds of the quotas section.
const (
	DefaultQuotaKeyHeader = "X-Api-Key"
	DefaultQuotaWeight    = 1
	DefaultQuotaPeriod    = time.Minute
	maxQuotaLimit         = 1_000_000_000
	maxQuotaWeight        = 1_000_000
	maxQuotaPeriod        = 24 * time.Hour
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

func defaultQuotaSettings() QuotaSettings {
	return QuotaSettings{KeyHeader: DefaultQuotaKeyHeader, DefaultWeight: DefaultQuotaWeight}
}

// quotaSection reads the `quotas:` section; k is its key node.
func (d *decoder) quotaSection(cfg *Config, k, n *node) error {
	q := defaultQuotaSettings()
	q.Pos = d.pos(k)
	if n.kind == kindScalar && n.null {
		cfg.Quotas = q
		return nil
	}
	err := d.fields(n, "quotas", func(key string, kn, v *node) (bool, error) {
		path := "quotas." + key
		var err error
		switch key {
		case "classes":
			err = eachEntry(d, v, path, func(name string, cn, cv *node) error {
				c, err := d.quotaClass(name, cn, cv, path+"."+name)
				q.Classes = append(q.Classes, c)
				return err
			})
		case "per_address":
			q.PerAddress, err = d.str(v, path)
			q.perAddressPos = d.pos(v)
		case "key_header":
			if q.KeyHeader, err = d.headerName(v, path); err == nil {
				switch {
				case q.KeyHeader == "":
					err = d.errf(v, path, "empty: name the header clients send their API key in (default %s)", DefaultQuotaKeyHeader)
				case strings.EqualFold(q.KeyHeader, "Authorization"):
					err = d.errf(v, path, "Authorization carries the auth service's tokens (an app's token counts against its auth.apps[].quota); give API keys a header of their own")
				}
			}
		case "default_weight":
			q.DefaultWeight, err = d.intIn(v, path, 0, maxQuotaWeight)
		case "weights":
			err = eachEntry(d, v, path, func(e string, wn, wv *node) error {
				w, err := d.intIn(wv, path+"."+e, 0, maxQuotaWeight)
				q.Weights = append(q.Weights, Entry[int]{Key: e, Value: w, Pos: d.pos(wn)})
				return err
			})
		case "keys":
			err = eachEntry(d, v, path, func(name string, kn, kv *node) error {
				qk, err := d.quotaKey(name, kn, kv, path+"."+name)
				q.Keys = append(q.Keys, qk)
				return err
			})
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return err
	}
	if err := noDuplicates(q.Weights, "quotas.weights"); err != nil {
		return err
	}
	seen := map[string]string{}
	for _, qk := range q.Keys {
		if prev, dup := seen[qk.SHA256]; dup {
			return &Error{Pos: qk.Pos, Key: "quotas.keys." + qk.Name + ".sha256", Err: fmt.Errorf("the same key as quotas.keys.%s: every key needs its own", prev)}
		}
		seen[qk.SHA256] = qk.Name
	}
	cfg.Quotas = q
	return nil
}

// quotaClass reads one entry of quotas.classes.
func (d *decoder) quotaClass(name string, kn, n *node, path string) (QuotaClass, error) {
	c := QuotaClass{Name: name, Period: DefaultQuotaPeriod, Pos: d.pos(kn)}
	if !validQuotaName(name) {
		return c, d.errf(kn, path, "want a name of letters, digits, '_', '-' and '.'")
	}
	err := d.fields(n, path, func(key string, _, v *node) (bool, error) {
		kp := path + "." + key
		var err error
		switch key {
		case "limit":
			c.Limit, err = d.intIn(v, kp, 1, maxQuotaLimit)
		case "period":
			c.Period, err = d.seconds(v, kp, time.Second, maxQuotaPeriod)
		case "burst":
			c.Burst, err = d.intIn(v, kp, 1, maxQuotaLimit)
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return c, err
	}
	if c.Limit == 0 {
		return c, d.errf(n, path+".limit", "required: the weight units allowed per period (a call weighs quotas.default_weight unless quotas.weights says otherwise)")
	}
	if c.Burst == 0 {
		c.Burst = c.Limit
	}
	return c, nil
}

// quotaKey reads one entry of quotas.keys.
func (d *decoder) quotaKey(name string, kn, n *node, path string) (QuotaKey, error) {
	qk := QuotaKey{Name: name, Pos: d.pos(kn)}
	if !validQuotaName(name) {
		return qk, d.errf(kn, path, "want a name of letters, digits, '_', '-' and '.' (it names the key in metrics and logs)")
	}
	err := d.fields(n, path, func(key string, _, v *node) (bool, error) {
		kp := path + "." + key
		var err error
		switch key {
		case "sha256":
			if v.kind == kindScalar && len(v.str) != 64 {
				// Not a digest: perhaps the key itself. Never repeat it.
				return true, d.errf(v, kp, "want the hex sha256 of the key (64 digits), never the key itself (the value, %d characters, is not repeated here)", len(v.str))
			}
			if qk.SHA256, err = d.str(v, kp); err == nil {
				qk.SHA256 = strings.ToLower(qk.SHA256)
				if _, e := hex.DecodeString(qk.SHA256); e != nil {
					err = d.errf(v, kp, "want the hex sha256 of the key (64 digits)")
				}
			}
		case "class":
			qk.Class, err = d.str(v, kp)
		default:
			return false, nil
		}
		return true, err
	})
	switch {
	case err != nil:
		return qk, err
	case qk.SHA256 == "":
		return qk, d.errf(n, path+".sha256", "required: the hex sha256 of the key (printf %%s KEY | sha256sum)")
	case qk.Class == "":
		return qk, d.errf(n, path+".class", "required: the quotas.classes entry the key is held to")
	}
	return qk, nil
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

// checkQuotas checks that every class named (per_address, keys, auth apps)
// exists; called by validate.
func (c *Config) checkQuotas() error {
	q := c.Quotas
	names := make([]string, len(q.Classes))
	for i, cl := range q.Classes {
		names[i] = cl.Name
	}
	unknown := func(pos Pos, key, class string) error {
		if _, ok := q.Class(class); ok {
			return nil
		}
		list := "none: add a quotas.classes section"
		if len(names) > 0 {
			list = strings.Join(names, ", ")
		}
		return &Error{Pos: pos, Key: key, Err: fmt.Errorf("unknown quota class %q (quotas.classes: %s)", class, list)}
	}
	if q.PerAddress != "" {
		if err := unknown(q.perAddressPos, "quotas.per_address", q.PerAddress); err != nil {
			return err
		}
	}
	for _, k := range q.Keys {
		if err := unknown(k.Pos, "quotas.keys."+k.Name+".class", k.Class); err != nil {
			return err
		}
	}
	for i, a := range c.Auth.Apps {
		if a.Quota == "" {
			continue
		}
		if err := unknown(a.quotaPos, fmt.Sprintf("auth.apps[%d].quota", i), a.Quota); err != nil {
			return err
		}
	}
	if len(q.Classes) > 0 && !c.QuotasEnabled() {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: quotas: no class is given to anything (quotas.per_address, quotas.keys, auth.apps[].quota): nothing is limited", q.Pos))
	}
	return nil
}
