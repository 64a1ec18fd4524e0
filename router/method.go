// Package router turns a JSON-RPC method and params into a canonical method
// key and resolves it against the config's urls, ttls, timeouts and retries,
// most specific match first.
package router

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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
}

// APIMethod returns "api.method" (or the method alone for two-part calls).
func (c *Call) APIMethod() string {
	if c.API == "" {
		return c.Method
	}
	return c.API + "." + c.Method
}

// segments returns the key's path segments without params.
func (c *Call) segments() []string {
	if c.API == "" {
		return []string{c.Namespace, c.Method}
	}
	return []string{c.Namespace, c.API, c.Method}
}

// ErrInvalidMethod is wrapped by every method-parsing error.
var ErrInvalidMethod = errors.New("invalid method")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidMethod, fmt.Sprintf(format, args...))
}

// parse splits a method into namespace, api and method as the design's key
// table says. defaultNS is the namespace of bare methods; translate lists the
// namespaces whose calls are forwarded as condenser_api calls.
func parse(method string, params json.RawMessage, defaultNS string, translate map[string]bool) (*Call, error) {
	c := &Call{Params: params, UpstreamMethod: method, UpstreamParams: params}
	if method == "call" {
		if err := parseCallForm(c, params, defaultNS); err != nil {
			return nil, err
		}
	} else {
		parts := strings.Split(method, ".")
		for _, p := range parts {
			if p == "" {
				return nil, invalid("method %q has an empty part", method)
			}
		}
		switch len(parts) {
		case 1:
			c.Namespace, c.API, c.Method = defaultNS, "database_api", parts[0]
		case 2:
			if strings.HasSuffix(parts[0], "_api") || parts[0] == "jsonrpc" {
				c.Namespace, c.API, c.Method = "appbase", parts[0], parts[1]
			} else {
				c.Namespace, c.Method = parts[0], parts[1]
			}
		case 3:
			c.Namespace, c.API, c.Method = parts[0], parts[1], parts[2]
			// The namespace is hivegate's routing concept: a backend knows
			// the call as api.method.
			c.UpstreamMethod = parts[1] + "." + parts[2]
		default:
			return nil, invalid("method %q has %d dotted parts; at most 3 are allowed", method, len(parts))
		}
	}
	if translate[c.Namespace] && c.Namespace != "appbase" {
		// translate_to_appbase: the call is forwarded to the node as the
		// condenser_api method of the same name, and keyed as that call.
		c.Namespace, c.API = "appbase", "condenser_api"
		c.UpstreamMethod = "condenser_api." + c.Method
		c.UpstreamParams = c.Params
	}
	key, err := canonicalKey(c.segments(), c.Params)
	if err != nil {
		return nil, err
	}
	c.Key = key
	return c, nil
}

// parseCallForm handles {"method":"call","params":[api, method, params?]}.
func parseCallForm(c *Call, params json.RawMessage, defaultNS string) error {
	var args []json.RawMessage
	if err := json.Unmarshal(params, &args); err != nil || len(args) < 2 || len(args) > 3 {
		return invalid(`"call" wants params [api, method] or [api, method, params]`)
	}
	var api string
	switch {
	case len(args[0]) > 0 && args[0][0] == '"':
		if err := json.Unmarshal(args[0], &api); err != nil {
			return invalid(`"call" api must be a string`)
		}
	default:
		var n json.Number
		if err := json.Unmarshal(args[0], &n); err != nil {
			return invalid(`"call" api must be a string or 0/1`)
		}
		switch n.String() {
		case "0":
			api = "database_api"
		case "1":
			api = "login_api"
		default:
			return invalid(`"call" numeric api %s: only 0 (database_api) and 1 (login_api) exist`, n)
		}
	}
	var method string
	if err := json.Unmarshal(args[1], &method); err != nil {
		return invalid(`"call" method must be a string`)
	}
	if api == "" || method == "" || strings.Contains(api, ".") || strings.Contains(method, ".") {
		return invalid(`"call" api and method must be non-empty names without dots`)
	}
	c.API, c.Method = api, method
	c.Params = nil
	if len(args) == 3 {
		c.Params = args[2]
	}
	switch {
	case len(args) == 2, api == "condenser_api", api == "jsonrpc", isObject(c.Params):
		c.Namespace = "appbase"
	default:
		// call ["database_api","get_block",[1]] is the pre-appbase spelling
		// of bare get_block [1]: one key for both.
		c.Namespace = defaultNS
	}
	return nil
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	return len(raw) > 0 && raw[0] == '{'
}
