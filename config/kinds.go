package config

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// The value kinds that fields name with as:"kind" (decode.go): each is a
// yaml.Unmarshaler with the underlying type of the fields it fills.

// UnmarshalYAML reads a TTL written as a word or an integer (a quoted
// integer is accepted too: some generators quote everything).
func (t *TTL) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || (n.Tag != tagStr && n.Tag != tagInt) {
		return fmt.Errorf("want a TTL (seconds, NO_CACHE, NO_EXPIRE, EXPIRE_IF_REVERSIBLE, or legacy 0, -1, -2), got %s", describe(n))
	}
	v, err := parseTTL(n.Value)
	*t = v
	return err
}

// timeout is whole seconds, 0 meaning none, at most MaxTimeoutSeconds.
type timeout time.Duration

func (t *timeout) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || n.Tag != tagInt {
		return fmt.Errorf("want a timeout in whole seconds (0 = none), got %s", describe(n))
	}
	v, err := integer(n)
	switch {
	case err != nil:
		return err
	case v < 0:
		return fmt.Errorf("timeout %d is negative: use 0 for no timeout", v)
	case v > MaxTimeoutSeconds:
		return fmt.Errorf("timeout %d s is over the limit of %d s (one day): use 0 for no timeout", v, MaxTimeoutSeconds)
	}
	*t = timeout(time.Duration(v) * time.Second)
	return nil
}

// interval is a timeout that cannot be off: 1 to MaxTimeoutSeconds (a
// client connection without a timeout is an invitation to hold it open
// forever).
type interval time.Duration

func (t *interval) UnmarshalYAML(n *yaml.Node) error {
	if err := (*timeout)(t).UnmarshalYAML(n); err != nil {
		return err
	}
	if *t == 0 {
		return errors.New("must be at least 1 second")
	}
	return nil
}

// age is a node health bound in whole seconds: 0 (stored as -1) turns the
// check off; otherwise at least a block (3 s).
type age time.Duration

func (a *age) UnmarshalYAML(n *yaml.Node) error {
	v, err := integer(n)
	switch {
	case err != nil:
		return err
	case v < 0 || v > 86400:
		return rangeError(fmt.Sprintf("%d out of range 0..86400", v))
	case v == 0:
		*a = -1
	case v < 3:
		return rangeError(fmt.Sprintf("%d is shorter than a block (3 s): use 0 to turn the check off", v))
	default:
		*a = age(time.Duration(v) * time.Second)
	}
	return nil
}

// retries is a number of retries, 0 to MaxRetries.
type retries int

func (r *retries) UnmarshalYAML(n *yaml.Node) error {
	v, err := integer(n)
	if err == nil && (v < 0 || v > MaxRetries) {
		err = fmt.Errorf("retries %d out of range 0..%d", v, MaxRetries)
	}
	*r = retries(v)
	return err
}

// durationOr reads a Go duration string ("50ms", "168h") or an integer
// count of unit.
func durationOr(n *yaml.Node, unit time.Duration, want string) (time.Duration, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == tagInt {
		v, err := integer(n)
		return time.Duration(v) * unit, err
	}
	if n.Kind == yaml.ScalarNode && n.Tag == tagStr {
		if v, err := time.ParseDuration(n.Value); err == nil {
			return v, nil
		}
	}
	return 0, fmt.Errorf("want %s, got %s", want, describe(n))
}

// millis is a duration written as whole milliseconds or a Go duration.
type millis time.Duration

func (m *millis) UnmarshalYAML(n *yaml.Node) error {
	v, err := durationOr(n, time.Millisecond, "milliseconds or a duration such as 50ms or 2s")
	*m = millis(v)
	return err
}

// seconds is a duration written as whole seconds or a Go duration.
type seconds time.Duration

func (s *seconds) UnmarshalYAML(n *yaml.Node) error {
	v, err := durationOr(n, time.Second, "seconds or a duration such as 90s or 168h")
	*s = seconds(v)
	return err
}

// fseconds is a duration written as a number of seconds, fractions
// allowed: jussi's timeouts.
type fseconds time.Duration

func (s *fseconds) UnmarshalYAML(n *yaml.Node) error {
	v, err := number(n)
	*s = fseconds(time.Duration(v * float64(time.Second)))
	if err != nil {
		return fmt.Errorf("want a number of seconds, got %s", describe(n))
	}
	return nil
}

// prefix is an address (1.2.3.4, ::1) or a range (10.0.0.0/8).
type prefix netip.Prefix

func (p *prefix) UnmarshalYAML(n *yaml.Node) error {
	s, err := str(n)
	if err != nil {
		return err
	}
	v, err := netip.ParsePrefix(s)
	if err != nil {
		a, aerr := netip.ParseAddr(s)
		if aerr != nil || a.Zone() != "" {
			return fmt.Errorf("%q is neither an IP address nor a CIDR range", s)
		}
		v = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
	}
	*p = prefix(v.Masked())
	return nil
}

// anyValue accepts any value: keys jussi documents but never reads.
type anyValue struct{}

func (*anyValue) UnmarshalYAML(*yaml.Node) error { return nil }

// not is a yes-or-no key stored as its negation (access_log: false sets
// AccessLogOff).
type not bool

func (b *not) UnmarshalYAML(n *yaml.Node) error {
	v, err := boolean(n)
	*b = not(!v)
	return err
}

// stringKinds are the kinds of strings with a rule of their own: each
// checks a string and returns what is stored.
var stringKinds = map[string]func(s string) (string, error){
	// A backend node's URL.
	"url": func(s string) (string, error) { return s, checkURL(s) },
	// A Redis URL, checked the way the Redis client will read it; empty:
	// none.
	"redis_url": func(s string) (string, error) { return s, ifSet(s, checkRedisURL) },
	"redis_prefix": func(s string) (string, error) {
		return s, errIf(s == "", "empty prefix: give the keys a namespace (the default is %q)", DefaultRedisPrefix)
	},
	// An HTTP header name such as X-Forwarded-For.
	"header": func(s string) (string, error) {
		return s, errIf(strings.ContainsFunc(s, func(c rune) bool {
			return !(c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
		}), "%q is not an HTTP header name", s)
	},
	// A name of admin_allowed_hosts: a DNS name without scheme, port or
	// wildcard, stored lower case; an IP address, allowed anyway, is
	// stored as "" (and dropped).
	"host": func(s string) (string, error) {
		name := strings.ToLower(strings.TrimSuffix(s, "."))
		if _, err := netip.ParseAddr(strings.Trim(name, "[]")); err == nil {
			return "", nil
		}
		return name, errIf(!validHostName(name), "want a host name such as admin.example.internal (no scheme, port or wildcard), got %q", s)
	},
	// HOST:PORT, or "" for none.
	"listen": func(s string) (string, error) { return s, ifSet(s, checkListen) },
	// A bearer token.
	"token": func(s string) (string, error) {
		return s, errIf(s == "" || len(s) > maxAdminTokenLen || !tokenChars(s), "want 1 to %d printable characters without spaces", maxAdminTokenLen)
	},
	"metrics_path": func(s string) (string, error) {
		return s, errIf(!validMetricsPath(s), "want an absolute URL path other than / such as /metrics, got %q", s)
	},
	"metrics_namespace": func(s string) (string, error) {
		return s, errIf(!metricNamespace.MatchString(s) || len(s) > 64, "want a Prometheus name prefix such as hivegate or drone (letters, digits, _), got %q", s)
	},
	"otlp": func(s string) (string, error) { return s, checkOTLPEndpoint(s) },
	"nonempty": func(s string) (string, error) {
		if strings.TrimSpace(s) == "" {
			return s, rangeError("is empty")
		}
		return s, nil
	},
	"account": func(s string) (string, error) {
		return s, errIf(!ValidAccountName(s), "%q is not a Hive account name", s)
	},
	"client_id": func(s string) (string, error) {
		return s, errIf(!ValidAccountName(s), "%q is not a Hive account name (an app's client id is its account)", s)
	},
	// 32 bytes in hex, such as a chain id.
	"hex32": func(s string) (string, error) {
		b, err := hex.DecodeString(s)
		return s, errIf(err != nil || len(b) != 32, "want 64 hex digits")
	},
	// The hex sha256 of an app's secret, stored lower case.
	"sha256": func(s string) (string, error) {
		b, err := hex.DecodeString(s)
		return strings.ToLower(s), errIf(err != nil || len(b) != 32, "want the hex sha256 of the secret (64 digits), never the secret itself")
	},
	// The auth service's base URL, stored without a trailing /.
	"issuer": func(s string) (string, error) { return strings.TrimRight(s, "/"), ifSet(s, checkIssuer) },
	// A HiveAuth relay's WebSocket URL: wss, or ws to a loopback host.
	"relay": func(s string) (string, error) { return s, ifSet(s, checkRelayURL) },
	"redirect": func(s string) (string, error) {
		if err := checkRedirectURI(s); err != nil {
			return s, fmt.Errorf("%s: %v", s, err)
		}
		return s, nil
	},
	"scope": func(s string) (string, error) {
		return s, errIf(s != ScopeLogin && s != ScopePosting && s != ScopeOffline, "unknown scope %q: want login, posting or offline", s)
	},
	"require": func(s string) (string, error) {
		return s, errIf(s != ScopeLogin && s != ScopePosting && s != ScopeNone, "want login, posting or none, got %q", s)
	},
	// The path of a key file: a key written in its place is refused
	// without being repeated.
	"key_file": func(s string) (string, error) {
		return s, errIf(looksLikePrivateKey(s), "looks like a private key, not a path; put the key in a file readable only by hivegate and give its path (the value is not repeated here; if this file is shared, the key is no longer secret)")
	},
	// The name of an environment variable holding a key; anything else
	// is refused without being repeated.
	"key_env": func(s string) (string, error) {
		if looksLikePrivateKey(s) {
			return s, errors.New("looks like a private key, not the name of an environment variable; put the key in a variable and give its name, such as HIVEGATE_SERVICE_KEY (the value is not repeated here; if this file is shared, the key is no longer secret)")
		}
		return s, errIf(!validEnvName(s), "want the name of an environment variable (letters, digits and _, not starting with a digit), such as HIVEGATE_SERVICE_KEY; the value, %d characters, is not repeated here", len(s))
	},
}

// errIf returns the error when bad.
func errIf(bad bool, format string, args ...any) error {
	if bad {
		return fmt.Errorf(format, args...)
	}
	return nil
}

// ifSet checks s unless it is empty.
func ifSet(s string, check func(string) error) error {
	if s == "" {
		return nil
	}
	return check(s)
}
