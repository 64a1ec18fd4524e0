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

// nodeURL is a backend node's URL (checkURL).
type nodeURL string

func (u *nodeURL) UnmarshalYAML(n *yaml.Node) error {
	s, err := str(n)
	if err == nil {
		err = checkURL(s)
	}
	*u = nodeURL(s)
	return err
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

// headerName is an HTTP header name such as X-Forwarded-For.
type headerName string

func (h *headerName) UnmarshalYAML(n *yaml.Node) error {
	s, err := str(n)
	for _, c := range s {
		if !(c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return fmt.Errorf("%q is not an HTTP header name", s)
		}
	}
	*h = headerName(s)
	return err
}

// hostName is a name of admin_allowed_hosts: a DNS name without scheme,
// port or wildcard, stored lower case; an IP address (allowed anyway) is
// stored as "".
type hostName string

func (h *hostName) UnmarshalYAML(n *yaml.Node) error {
	s, err := str(n)
	if err != nil {
		return err
	}
	name := strings.ToLower(strings.TrimSuffix(s, "."))
	if _, err := netip.ParseAddr(strings.Trim(name, "[]")); err == nil {
		name = "" // IP addresses are always accepted
	} else if !validHostName(name) {
		return fmt.Errorf("want a host name such as admin.example.internal (no scheme, port or wildcard), got %q", s)
	}
	*h = hostName(name)
	return nil
}

// listenAddr is HOST:PORT, or "" for none.
type listenAddr string

func (l *listenAddr) UnmarshalYAML(n *yaml.Node) error {
	s, err := str(n)
	if err == nil && s != "" {
		err = checkListen(s)
	}
	*l = listenAddr(s)
	return err
}

// adminToken is a bearer token: printable ASCII without spaces.
type adminToken string

func (t *adminToken) UnmarshalYAML(n *yaml.Node) error {
	s, err := str(n)
	if err == nil && (s == "" || len(s) > maxAdminTokenLen || !tokenChars(s)) {
		err = fmt.Errorf("want 1 to %d printable characters without spaces", maxAdminTokenLen)
	}
	*t = adminToken(s)
	return err
}

// metricsPath is where metrics are served: an absolute path other than /.
type metricsPath string

func (p *metricsPath) UnmarshalYAML(n *yaml.Node) error {
	s, err := str(n)
	if err == nil && !validMetricsPath(s) {
		err = fmt.Errorf("want an absolute URL path other than / such as /metrics, got %q", s)
	}
	*p = metricsPath(s)
	return err
}

// metricsNamespace is a Prometheus metric name prefix such as hivegate or
// drone.
type metricsNamespace string

func (m *metricsNamespace) UnmarshalYAML(n *yaml.Node) error {
	s, err := str(n)
	if err == nil && (!metricNamespace.MatchString(s) || len(s) > 64) {
		err = fmt.Errorf("want a Prometheus name prefix such as hivegate or drone (letters, digits, _), got %q", s)
	}
	*m = metricsNamespace(s)
	return err
}

// otlpEndpoint is an OTLP/HTTP collector's URL.
type otlpEndpoint string

func (o *otlpEndpoint) UnmarshalYAML(n *yaml.Node) error {
	s, err := str(n)
	if err == nil {
		err = checkOTLPEndpoint(s)
	}
	*o = otlpEndpoint(s)
	return err
}

// nonEmpty is a string with more than spaces.
type nonEmpty string

func (e *nonEmpty) UnmarshalYAML(n *yaml.Node) error {
	s, err := str(n)
	if err == nil && strings.TrimSpace(s) == "" {
		err = rangeError("is empty")
	}
	*e = nonEmpty(s)
	return err
}

// redisPrefix namespaces hivegate's Redis keys.
type redisPrefix string

func (p *redisPrefix) UnmarshalYAML(n *yaml.Node) error {
	s, err := str(n)
	if err == nil && s == "" {
		err = fmt.Errorf("empty prefix: give the keys a namespace (the default is %q)", DefaultRedisPrefix)
	}
	*p = redisPrefix(s)
	return err
}

// accountName is a Hive account name.
type accountName string

func (a *accountName) UnmarshalYAML(n *yaml.Node) error {
	s, err := str(n)
	if err == nil && !ValidAccountName(s) {
		err = fmt.Errorf("%q is not a Hive account name", s)
	}
	*a = accountName(s)
	return err
}

// clientID is an app's client id: its Hive account.
type clientID string

func (c *clientID) UnmarshalYAML(n *yaml.Node) error {
	s, err := str(n)
	if err == nil && !ValidAccountName(s) {
		err = fmt.Errorf("%q is not a Hive account name (an app's client id is its account)", s)
	}
	*c = clientID(s)
	return err
}

// hex32 is 32 bytes in hex, such as a chain id.
type hex32 string

func (h *hex32) UnmarshalYAML(n *yaml.Node) error {
	s, err := str(n)
	if b, e := hex.DecodeString(s); err == nil && (e != nil || len(b) != 32) {
		err = errors.New("want 64 hex digits")
	}
	*h = hex32(s)
	return err
}

// secretHash is the hex sha256 of an app's secret, stored lower case.
type secretHash string

func (h *secretHash) UnmarshalYAML(n *yaml.Node) error {
	s, err := str(n)
	s = strings.ToLower(s)
	if b, e := hex.DecodeString(s); err == nil && (e != nil || len(b) != 32) {
		err = errors.New("want the hex sha256 of the secret (64 digits), never the secret itself")
	}
	*h = secretHash(s)
	return err
}

// issuerURL is the auth service's base URL, stored without a trailing /.
type issuerURL string

func (u *issuerURL) UnmarshalYAML(n *yaml.Node) error {
	s, err := str(n)
	if err == nil && s != "" {
		err = checkIssuer(s)
	}
	*u = issuerURL(strings.TrimRight(s, "/"))
	return err
}

// redirectURI is an URI an app may be sent back to.
type redirectURI string

func (r *redirectURI) UnmarshalYAML(n *yaml.Node) error {
	s, err := str(n)
	if err == nil {
		if cerr := checkRedirectURI(s); cerr != nil {
			err = fmt.Errorf("%s: %v", s, cerr)
		}
	}
	*r = redirectURI(s)
	return err
}

// scope is a scope an app may ask for.
type scope string

func (s *scope) UnmarshalYAML(n *yaml.Node) error {
	v, err := str(n)
	if err == nil && v != ScopeLogin && v != ScopePosting && v != ScopeOffline {
		err = fmt.Errorf("unknown scope %q: want login, posting or offline", v)
	}
	*s = scope(v)
	return err
}

// requireScope is the scope a call needs (auth.require_token).
type requireScope string

func (s *requireScope) UnmarshalYAML(n *yaml.Node) error {
	v, err := str(n)
	if err == nil && v != ScopeLogin && v != ScopePosting && v != ScopeNone {
		err = fmt.Errorf("want login, posting or none, got %q", v)
	}
	*s = requireScope(v)
	return err
}

// keyFile is the path of a key file. A key written in its place is refused
// with a message that does not repeat it.
type keyFile string

func (k *keyFile) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && looksLikePrivateKey(n.Value) {
		return errors.New("looks like a private key, not a path; put the key in a file readable only by hivegate and give its path (the value is not repeated here; if this file is shared, the key is no longer secret)")
	}
	s, err := str(n)
	*k = keyFile(s)
	return err
}

// keyEnv is the name of an environment variable holding a key. A key
// written in its place, or anything else that is not a variable name, is
// refused without repeating the value.
type keyEnv string

func (k *keyEnv) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && looksLikePrivateKey(n.Value) {
		return errors.New("looks like a private key, not the name of an environment variable; put the key in a variable and give its name, such as HIVEGATE_SERVICE_KEY (the value is not repeated here; if this file is shared, the key is no longer secret)")
	}
	s, err := str(n)
	if err == nil && !validEnvName(s) {
		err = fmt.Errorf("want the name of an environment variable (letters, digits and _, not starting with a digit), such as HIVEGATE_SERVICE_KEY; the value, %d characters, is not repeated here", len(s))
	}
	*k = keyEnv(s)
	return err
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

// redisURL is a Redis URL checked the way the Redis client will read it;
// empty means none. Messages never repeat the URL's password.
type redisURL string

func (r *redisURL) UnmarshalYAML(n *yaml.Node) error {
	s, err := str(n)
	if err == nil && s != "" {
		err = checkRedisURL(s)
	}
	*r = redisURL(s)
	return err
}
