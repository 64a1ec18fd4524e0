package config_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/config"
)

// minimal is the smallest valid modern config; error cases append to it.
const minimal = "backends:\n  hived: http://127.0.0.1:8091\nurls:\n  hived: hived\n"

// TestErrors checks that every kind of config error is an *config.Error that
// names the file, the line and the key.
func TestErrors(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name, file, text string
		line             int
		key              string
		msg              string
	}{
		// Unknown keys.
		{"unknown top-level key", "c.yaml", minimal + "colour: red\n", 5, "colour", "unknown key"},
		{"unknown settings key", "c.yaml", "hivegate:\n  port: 1\n  colour: red\n" + minimal, 3, "hivegate.colour", "unknown key"},
		{"unknown drone settings key", "c.yaml", "drone:\n  portt: 1\n" + minimal, 2, "drone.portt", "unknown key"},
		{"unknown limits key", "c.yaml", minimal + "limits:\n  max_batch: 3\n", 6, "limits.max_batch", "unknown key"},
		{"unknown legacy top-level key", "c.json", `{"upstreams": [], "extra": 1}`, 1, "extra", "unknown key"},
		{"unknown legacy limits key", "c.json", "{\n \"limits\": {\n  \"blacklist\": []\n }\n}", 3, "limits.blacklist", "unknown key"},
		{"unknown upstream key", "c.json", "{\"upstreams\": [{\n \"name\": \"steemd\",\n \"ttl\": []\n}]}", 3, "upstreams[steemd].ttl", "unknown key"},
		{"unknown pair object key", "c.json", `{"upstreams": [{"name": "s", "urls": [{"prefix": "s", "url": "http://h"}]}]}`, 1, "upstreams[s].urls.url", "unknown key (want prefix and upstream_url)"},
		// Backends and urls.
		{"unknown backend in urls", "c.yaml", minimal + "  bridge: hivemind\n", 5, "urls.bridge", `unknown backend "hivemind" (backends: hived)`},
		{"bad URL", "c.yaml", "backends:\n  hived: not a url\nurls:\n  hived: hived\n", 2, "backends.hived", `want http://, https://, ws:// or wss://`},
		{"bad URL scheme", "c.yaml", "backends:\n  hived: ftp://node\nurls:\n  hived: hived\n", 2, "backends.hived", "want http://, https://, ws:// or wss://"},
		{"URL without host", "c.yaml", "backends:\n  hived: http://\nurls:\n  hived: hived\n", 2, "backends.hived", "no host"},
		{"unparsable URL", "c.yaml", "backends:\n  hived: \"http://a b\"\nurls:\n  hived: hived\n", 2, "backends.hived", "bad URL"},
		{"empty node list", "c.yaml", "backends:\n  hived: []\nurls:\n  hived: hived\n", 2, "backends.hived", "a backend needs at least one node URL"},
		{"node listed twice", "c.yaml", "backends:\n  hived: [http://h, http://h]\nurls:\n  hived: hived\n", 2, "backends.hived", "node http://h is listed twice"},
		{"bad second node", "c.yaml", "backends:\n  hived: [http://h, ftp://i]\nurls:\n  hived: hived\n", 2, "backends.hived", "want http://, https://, ws:// or wss://"},
		{"no urls", "c.yaml", "backends:\n  hived: http://h\n", 0, "urls", "no urls"},
		{"empty urls key", "c.yaml", "backends:\n  hived: http://h\nurls:\n  '': hived\n", 4, "urls", "empty key"},
		// TTLs, timeouts, retries.
		{"bad TTL word", "c.yaml", minimal + "ttls:\n  hived: SOMETIMES\n", 6, "ttls.hived", `bad TTL "SOMETIMES"`},
		{"lower-case TTL word", "c.yaml", minimal + "ttls:\n  hived: no_cache\n", 6, "ttls.hived", `bad TTL "no_cache"`},
		{"TTL -3", "c.yaml", minimal + "ttls:\n  hived: -3\n", 6, "ttls.hived", "bad TTL -3"},
		{"legacy TTL -3", "c.json", "{\"upstreams\": [{\"name\": \"steemd\",\n \"urls\": [[\"steemd\", \"http://h\"]],\n \"ttls\": [[\"steemd\", -3]]}]}", 3, "upstreams[steemd].ttls.steemd", "bad TTL -3"},
		{"legacy TTL word", "c.json", "{\"upstreams\": [{\"name\": \"steemd\",\n \"urls\": [[\"steemd\", \"http://h\"]],\n \"ttls\": [[\"steemd\", \"SOON\"]]}]}", 3, "upstreams[steemd].ttls.steemd", `bad TTL "SOON"`},
		{"fractional TTL", "c.yaml", minimal + "ttls:\n  hived: 1.5\n", 6, "ttls.hived", "want a TTL"},
		{"huge TTL", "c.yaml", minimal + "ttls:\n  hived: 9999999999\n", 6, "ttls.hived", "use NO_EXPIRE"},
		{"TTL list", "c.yaml", minimal + "ttls:\n  hived: [3]\n", 6, "ttls.hived", "want a TTL"},
		{"negative timeout", "c.yaml", minimal + "timeouts:\n  hived: -1\n", 6, "timeouts.hived", "negative"},
		{"fractional timeout", "c.yaml", minimal + "timeouts:\n  hived: 2.5\n", 6, "timeouts.hived", "want a timeout in whole seconds"},
		{"timeout over a day", "c.yaml", minimal + "timeouts:\n  hived: 86401\n", 6, "timeouts.hived", "over the limit"},
		{"retries 4", "c.yaml", minimal + "retries:\n  hived: 4\n", 6, "retries.hived", "retries 4 out of range 0..3"},
		{"retries word", "c.yaml", minimal + "retries:\n  hived: many\n", 6, "retries.hived", `want an integer, got "many"`},
		{"backend URL number", "c.yaml", "backends:\n  hived: 8091\nurls:\n  hived: hived\n", 2, "backends.hived", "want a node URL or a list of them, got 8091"},
		{"retries -1", "c.yaml", minimal + "retries:\n  hived: -1\n", 6, "retries.hived", "out of range"},
		{"legacy retries 4", "c.json", "{\"upstreams\": [{\"name\": \"steemd\",\n \"urls\": [[\"steemd\", \"http://h\"]],\n \"retries\": [[\"steemd\", 4]]}]}", 3, "upstreams[steemd].retries.steemd", "out of range"},
		// Duplicates.
		{"duplicate YAML key", "c.yaml", minimal + "  hived: hived\n", 5, "urls.hived", "duplicate key: also given on line 4"},
		{"duplicate YAML section", "c.yaml", minimal + "urls:\n  bridge: hived\n", 5, "urls", "duplicate key: also given on line 3"},
		{"settings section twice", "c.yaml", "hivegate:\n  port: 1\ndrone:\n  port: 2\n" + minimal, 3, "drone", `the settings section is given twice (also as "hivegate")`},
		{"duplicate JSON key", "c.json", "{\"limits\": {},\n \"limits\": {}}", 2, "limits", "duplicate key: also given on line 1"},
		{"duplicate legacy pair", "c.json", "{\"upstreams\": [{\"name\": \"steemd\",\n \"urls\": [[\"steemd\", \"http://h\"]],\n \"ttls\": [[\"steemd\", 3],\n [\"steemd\", 4]]}]}", 4, "ttls.steemd", "duplicate key: also given at c.json:3"},
		{"duplicate upstream name", "c.json", "{\"upstreams\": [{\"name\": \"a\", \"urls\": [[\"a\", \"http://h\"]]},\n{\"name\": \"a\"}]}", 2, "upstreams[1].name", `upstream "a" is also defined at c.json:1`},
		{"duplicate backend", "c.yaml", "backends:\n  a: http://h\n  a: http://i\nurls:\n  a: a\n", 3, "backends.a", "duplicate key"},
		// Wrong types.
		{"quoted port", "c.yaml", "hivegate:\n  port: \"8090\"\n" + minimal, 2, "hivegate.port", `want an integer, got "8090"`},
		{"port out of range", "c.yaml", "hivegate:\n  port: 70000\n" + minimal, 2, "hivegate.port", "out of range"},
		{"numeric hostname", "c.yaml", "hivegate:\n  hostname: 8080\n" + minimal, 2, "hivegate.hostname", "want a string, got 8080"},
		{"null operator message", "c.yaml", "hivegate:\n  operator_message:\n" + minimal, 2, "hivegate.operator_message", "want a string, got nothing (null)"},
		{"settings not a mapping", "c.yaml", "hivegate: 5\n" + minimal, 1, "hivegate", "want a mapping of keys to values, got 5"},
		{"negative cache capacity", "c.yaml", "hivegate:\n  cache_max_capacity: -1\n" + minimal, 2, "hivegate.cache_max_capacity", "negative"},
		{"node_max_head_age 1", "c.yaml", "hivegate:\n  node_max_head_age: 1\n" + minimal, 2, "hivegate.node_max_head_age", "node_max_head_age 1 is shorter than a block (3 s): use 0 to turn the check off"},
		{"node_max_sync_age -1", "c.yaml", "hivegate:\n  node_max_sync_age: -1\n" + minimal, 2, "hivegate.node_max_sync_age", "node_max_sync_age -1 out of range 0..86400"},
		{"zero threads", "c.yaml", "hivegate:\n  middleware_connection_threads: 0\n" + minimal, 2, "hivegate.middleware_connection_threads", "out of range 1..10000"},
		{"zero lib poll interval", "c.yaml", "hivegate:\n  lib_poll_interval: 0\n" + minimal, 2, "hivegate.lib_poll_interval", "at least 1 second"},
		{"hex integer", "c.yaml", "hivegate:\n  port: 0x1f90\n" + minimal, 2, "hivegate.port", "want a decimal integer"},
		{"urls as list", "c.yaml", "backends:\n  hived: http://h\nurls:\n  - hived\n", 4, "urls", "want a mapping, got a list"},
		{"url value list", "c.yaml", "backends:\n  hived: http://h\nurls:\n  hived: [hived]\n", 4, "urls.hived", "want a string, got a list"},
		{"translate_to_appbase scalar", "c.yaml", minimal + "translate_to_appbase: hived\n", 5, "translate_to_appbase", "want a list of strings"},
		{"translate_to_appbase with dot", "c.yaml", minimal + "translate_to_appbase: [a.b]\n", 5, "translate_to_appbase", `got "a.b"`},
		{"default_namespace with dot", "c.yaml", minimal + "default_namespace: a.b\n", 5, "default_namespace", `got "a.b"`},
		{"default_namespace empty", "c.yaml", minimal + "default_namespace: ''\n", 5, "default_namespace", `got ""`},
		{"max_batch_size 0", "c.yaml", minimal + "limits:\n  max_batch_size: 0\n", 6, "limits.max_batch_size", "out of range 1..10000"},
		{"max_upstream_batch_size 0", "c.yaml", minimal + "limits:\n  max_upstream_batch_size: 0\n", 6, "limits.max_upstream_batch_size", "out of range 1..1000"},
		{"no_upstream_batch unknown backend", "c.yaml", minimal + "limits:\n  no_upstream_batch: [hivemind]\n", 6, "limits.no_upstream_batch", `unknown backend "hivemind"`},
		{"max_body_bytes small", "c.yaml", minimal + "limits:\n  max_body_bytes: 10\n", 6, "limits.max_body_bytes", "out of range"},
		{"max_json_depth 1", "c.yaml", minimal + "limits:\n  max_json_depth: 1\n", 6, "limits.max_json_depth", "out of range 2..1000"},
		{"blacklist of numbers", "c.yaml", minimal + "limits:\n  blacklist_accounts: [1]\n", 6, "limits.blacklist_accounts", "want a string, got 1"},
		{"legacy upstreams object", "c.json", `{"upstreams": {}}`, 1, "upstreams", "want a list of upstream objects, got a mapping"},
		{"legacy upstream scalar", "c.json", `{"upstreams": ["steemd"]}`, 1, "upstreams[0]", `want an upstream object, got "steemd"`},
		{"legacy translate string", "c.json", "{\"upstreams\": [{\"name\": \"s\",\n \"translate_to_appbase\": \"yes\"}]}", 2, "upstreams[s].translate_to_appbase", `want true or false, got "yes"`},
		{"legacy numeric name", "c.json", `{"upstreams": [{"name": 5}]}`, 1, "upstreams[0].name", "want a string, got 5"},
		{"legacy name with dot", "c.json", `{"upstreams": [{"name": "a.b"}]}`, 1, "upstreams[0].name", "without dots"},
		{"legacy timeout string", "c.json", "{\"upstreams\": [{\"name\": \"s\", \"urls\": [[\"s\", \"http://h\"]],\n \"timeouts\": [[\"s\", \"5\"]]}]}", 2, "upstreams[s].timeouts.s", `want a timeout in whole seconds (0 = none), got "5"`},
		{"legacy url number", "c.json", `{"upstreams": [{"name": "s", "urls": [["s", 5]]}]}`, 1, "upstreams[s].urls.s", "want a string, got 5"},
		// Upstream name and pair shapes.
		{"missing upstream name", "c.json", "{\"upstreams\": [\n {\"urls\": []}]}", 2, "upstreams[0].name", "upstream has no name"},
		{"pair of one", "c.json", "{\"upstreams\": [{\"name\": \"s\",\n \"urls\": [[\"s\"]]}]}", 2, "upstreams[s].urls", "want a [key, value] pair, got a list of 1"},
		{"pair of three", "c.json", `{"upstreams": [{"name": "s", "urls": [["s", "http://h", 3]]}]}`, 1, "upstreams[s].urls", "got a list of 3"},
		{"pair key number", "c.json", `{"upstreams": [{"name": "s", "ttls": [[1, 3]]}]}`, 1, "upstreams[s].ttls", "want a string, got 1"},
		{"pair key empty", "c.json", `{"upstreams": [{"name": "s", "ttls": [["", 3]]}]}`, 1, "upstreams[s].ttls", "empty method key"},
		{"pair scalar", "c.json", `{"upstreams": [{"name": "s", "ttls": ["s"]}]}`, 1, "upstreams[s].ttls", `want a [key, value] pair, got "s"`},
		{"pair object without value", "c.json", `{"upstreams": [{"name": "s", "ttls": [{"prefix": "s"}]}]}`, 1, "upstreams[s].ttls", `want {"prefix": key, "upstream_ttl": value}`},
		{"pairs not a list", "c.json", `{"upstreams": [{"name": "s", "ttls": {"s": 3}}]}`, 1, "upstreams[s].ttls", "want a list of [key, value] pairs, got a mapping"},
		// Syntax and document shape.
		{"YAML syntax error", "c.yaml", "urls:\n  a: [b,\n", 2, "", "did not find expected node content"},
		{"YAML tab", "c.yaml", "urls:\n\thived: hived\n", 0, "", "cannot start any token"},
		{"JSON syntax error", "c.json", "{\n\"upstreams\": [\n}\n", 3, "upstreams", "JSON syntax error"},
		{"JSON truncated", "c.json", "{\n\"upstreams\": [\n", 2, "upstreams", "unexpected end of file"},
		{"JSON trailing data", "c.json", "{\"upstreams\": []}\n{}", 2, "", "unexpected data after the top-level value"},
		{"JSON top-level list of non-objects", "c.json", "[1]", 1, "upstreams[0]", "want an upstream object, got 1"},
		{"two YAML documents", "c.yaml", minimal + "---\nurls: {}\n", 5, "", "a second YAML document"},
		{"YAML merge key", "c.yaml", "base: &b {hived: hived}\nurls:\n  <<: *b\n", 3, "urls.<<", "merge keys are not supported"},
		{"self-referencing anchor", "c.yaml", minimal + "limits:\n  blacklist_accounts: &a [*a]\n", 6, "limits.blacklist_accounts", "nested more than 64 levels"},
		{"alias bomb", "c.yaml", aliasBomb(), 0, "", "more than 100000 values"},
		{"JSON nested too deep", "c.json", `{"upstreams": ` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "}", 1, "", "nested more than 64 levels"},
		{"unknown format", "c.toml", "a = 1", 0, "", "unknown config format"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := config.Parse(tc.file, []byte(tc.text))
			if err == nil {
				t.Fatal("Parse succeeded; want an error")
			}
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is a %T, want *config.Error", err, err)
			}
			if ce.Pos.File != tc.file {
				t.Errorf("file = %q, want %q", ce.Pos.File, tc.file)
			}
			if tc.line != 0 && ce.Pos.Line != tc.line {
				t.Errorf("line = %d, want %d (error %v)", ce.Pos.Line, tc.line, err)
			}
			if tc.key != "" && ce.Key != tc.key {
				t.Errorf("key = %q, want %q (error %v)", ce.Key, tc.key, err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not say %q", err, tc.msg)
			}
			prefix := ce.Pos.String() + ": "
			if tc.key != "" {
				prefix += tc.key + ": "
			}
			if !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("error %q does not start with %q", err, prefix)
			}
		})
	}
}

// aliasBomb is a YAML document whose aliases expand to 10^9 values.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		prev := "*a" + string(rune('0'+i-1))
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(prev)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// TestErrorString checks the rendering of errors without a line or key.
func TestErrorString(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		err  *config.Error
		want string
	}{
		{&config.Error{Pos: config.Pos{File: "f.yaml", Line: 3}, Key: "urls.x", Err: errors.New("bad")}, "f.yaml:3: urls.x: bad"},
		{&config.Error{Pos: config.Pos{File: "f.yaml"}, Key: "urls", Err: errors.New("bad")}, "f.yaml: urls: bad"},
		{&config.Error{Pos: config.Pos{File: "f.yaml", Line: 1}, Err: errors.New("bad")}, "f.yaml:1: bad"},
	}
	for _, tc := range testCases {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
		if !errors.Is(tc.err, tc.err.Err) {
			t.Errorf("errors.Is(%v, its Err) = false", tc.err)
		}
	}
}

// TestLoadMissingFile checks that Load reports a file it cannot read.
func TestLoadMissingFile(t *testing.T) {
	t.Parallel()
	if _, err := config.Load("testdata/does-not-exist.yaml"); err == nil || !strings.Contains(err.Error(), "does-not-exist.yaml") {
		t.Fatalf("Load of a missing file: err = %v", err)
	}
}
