// Package router turns a JSON-RPC method and params into a canonical method
// key and resolves it against the config's urls, ttls, timeouts and retries,
// most specific match first.
package router

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hivegate/hivegate/jsonwire"
)

// Call is one parsed JSON-RPC call: where it belongs (namespace, api, method),
// its canonical cache key, and what is forwarded upstream.
type Call struct {
	Namespace string // "appbase", "hived", "bridge", ...
	API       string // "condenser_api"; empty for two-part methods like bridge.get_discussion
	Method    string
	// Params are the call's params (for the `call` form, the inner params),
	// exactly as the client wrote them; nil when absent.
	Params json.RawMessage
	// Key is the canonical key: namespace.api.method[.params=<canonical JSON>].
	Key string
	// UpstreamMethod and UpstreamParams are what the backend receives. The
	// params bytes are the client's own: hived checks signatures inside
	// broadcast transactions against the exact serialisation, so hivegate
	// never re-encodes them.
	UpstreamMethod string
	UpstreamParams json.RawMessage
	// RenamedFrom is the method key (without params) the client's call had
	// before equivalent_methods renamed it; empty when it was not renamed.
	RenamedFrom string
}

// APIMethod returns "api.method" (or the method alone for two-part calls).
func (c *Call) APIMethod() string {
	if c.API == "" {
		return c.Method
	}
	return c.API + "." + c.Method
}

// appendSegments appends the key's path segments (without params) to dst.
func (c *Call) appendSegments(dst []string) []string {
	if c.API == "" {
		return append(dst, c.Namespace, c.Method)
	}
	return append(dst, c.Namespace, c.API, c.Method)
}

// ErrInvalidMethod is wrapped by every method-parsing error.
var ErrInvalidMethod = errors.New("invalid method")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidMethod, fmt.Sprintf(format, args...))
}

// parser holds what parsing a method depends on: the namespace of bare
// methods, the namespaces whose calls are forwarded as condenser_api calls
// (translate_to_appbase) and the renames of equivalent_methods (source
// method key → destination method).
type parser struct {
	defaultNS string
	translate map[string]bool
	equiv     map[string]string
}

// maxRenames bounds the renames of one call; the router refuses configs
// whose renames loop, so the bound is never reached.
const maxRenames = 8

// parse splits a method into namespace, api and method as the design's key
// table says.
func (p *parser) parse(method string, params json.RawMessage) (*Call, error) {
	c := new(Call)
	if err := p.parseCall(c, method, params); err != nil {
		return nil, err
	}
	var buf [3]string
	key, err := canonicalKey(c.appendSegments(buf[:0]), c.Params)
	if err != nil {
		return nil, err
	}
	c.Key = key
	return c, nil
}

// parseCall is parse into c, without the key. Like Drone's
// map_method_name, it parses the method, applies translate_to_appbase,
// then renames the call when equivalent_methods names its key as a source:
// the destination is parsed in turn, with the same params, and decides the
// key, the route and what is forwarded.
func (p *parser) parseCall(c *Call, method string, params json.RawMessage) error {
	*c = Call{Params: params, UpstreamMethod: method, UpstreamParams: params}
	if method == "call" {
		if err := parseCallForm(c, params, p.defaultNS); err != nil {
			return err
		}
	} else if err := parseDotted(c, method, p.defaultNS); err != nil {
		return err
	}
	p.translateCall(c)
	if len(p.equiv) == 0 {
		return nil
	}
	from := ""
	for range maxRenames {
		var buf [128]byte
		dest, ok := p.equiv[string(c.appendPath(buf[:0]))] // no allocation for the lookup
		if !ok {
			break
		}
		if from == "" {
			from = string(c.appendPath(buf[:0]))
		}
		params := c.Params
		*c = Call{Params: params, UpstreamMethod: dest, UpstreamParams: params}
		if err := parseDotted(c, dest, p.defaultNS); err != nil {
			return err
		}
		p.translateCall(c)
	}
	c.RenamedFrom = from
	return nil
}

// translateCall applies translate_to_appbase: a call in a listed namespace
// is forwarded to the node as the condenser_api method of the same name,
// and keyed as that call.
func (p *parser) translateCall(c *Call) {
	if p.translate[c.Namespace] && c.Namespace != "appbase" {
		c.Namespace, c.API = "appbase", "condenser_api"
		c.UpstreamMethod = "condenser_api." + c.Method
		c.UpstreamParams = c.Params
	}
}

// appendPath appends the call's key without params
// (namespace.api.method or namespace.method) to dst.
func (c *Call) appendPath(dst []byte) []byte {
	dst = append(dst, c.Namespace...)
	if c.API != "" {
		dst = append(append(dst, '.'), c.API...)
	}
	return append(append(dst, '.'), c.Method...)
}

// parseDotted handles method, api.method, namespace.method and
// namespace.api.method.
func parseDotted(c *Call, method, defaultNS string) error {
	if dots := strings.Count(method, "."); dots > 2 {
		return invalid("method %q has %d dotted parts; at most 3 are allowed", method, dots+1)
	}
	var parts [3]string
	n := 0
	for rest := method; ; n++ {
		i := strings.IndexByte(rest, '.')
		if i < 0 {
			parts[n] = rest
			n++
			break
		}
		parts[n], rest = rest[:i], rest[i+1:]
	}
	for _, p := range parts[:n] {
		if p == "" {
			return invalid("method %q has an empty part", method)
		}
		if !validName(p) {
			return invalid("method %q: names are printable ASCII without spaces or '='", method)
		}
	}
	switch n {
	case 1:
		c.Namespace, c.API, c.Method = defaultNS, "database_api", parts[0]
	case 2:
		if strings.HasSuffix(parts[0], "_api") || parts[0] == "jsonrpc" {
			c.Namespace, c.API, c.Method = "appbase", parts[0], parts[1]
		} else {
			c.Namespace, c.Method = parts[0], parts[1]
		}
	default:
		c.Namespace, c.API, c.Method = parts[0], parts[1], parts[2]
		// The namespace is hivegate's routing concept: a backend knows
		// the call as api.method.
		c.UpstreamMethod = method[len(parts[0])+1:]
	}
	return nil
}

// parseCallForm handles {"method":"call","params":[api, method, params?]}.
// The inner params are a slice of the client's own bytes.
func parseCallForm(c *Call, params json.RawMessage, defaultNS string) error {
	args, n, ok := callArgs(params)
	if !ok || n < 2 {
		return invalid(`"call" wants params [api, method] or [api, method, params]`)
	}
	var api string
	switch a := args[0]; {
	case a[0] == '"':
		if api, ok = jsonString(a); !ok {
			return invalid(`"call" api must be a string`)
		}
	case string(a) == "0":
		api = "database_api"
	case string(a) == "1":
		api = "login_api"
	case a[0] == '-' || a[0] >= '0' && a[0] <= '9':
		return invalid(`"call" numeric api %s: only 0 (database_api) and 1 (login_api) exist`, a)
	default:
		return invalid(`"call" api must be a string or 0/1`)
	}
	method, ok := jsonString(args[1])
	if !ok {
		return invalid(`"call" method must be a string`)
	}
	if !validName(api) || !validName(method) {
		return invalid(`"call" api and method must be non-empty names of printable ASCII without dots, spaces or '='`)
	}
	c.API, c.Method = api, method
	c.Params = nil
	if n == 3 {
		c.Params = args[2]
	}
	switch {
	case n == 2, api == "condenser_api", api == "jsonrpc", isObject(c.Params):
		c.Namespace = "appbase"
	default:
		// call ["database_api","get_block",[1]] is the pre-appbase spelling
		// of bare get_block [1]: one key for both.
		c.Namespace = defaultNS
	}
	return nil
}

// callArgs splits a JSON array of at most three elements into its elements,
// each a slice of params. ok is false when params are not valid JSON
// (within jsonwire.MaxDepth), not an array, or longer than three.
func callArgs(params []byte) (args [3][]byte, n int, ok bool) {
	it := jsonwire.Elements(params, 0, jsonwire.MaxDepth)
	for it.Next() {
		v := it.Value()
		if v == nil || n == len(args) {
			return args, n, false
		}
		args[n] = v
		n++
	}
	if it.Err() != nil || jsonwire.SkipSpace(params, it.End()) != len(params) {
		return args, n, false
	}
	return args, n, true
}

// jsonString decodes a JSON string literal (from valid JSON) as text (see
// jsonwire.Unquote); ok is false when raw is not a string.
func jsonString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	return jsonwire.Unquote(raw), true
}

func isObject(raw json.RawMessage) bool {
	i := jsonwire.SkipSpace(raw, 0)
	return i < len(raw) && raw[i] == '{'
}
