package router_test

import (
	"encoding/json"
	"testing"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/router"
)

// newRouter builds a router from modern YAML config text.
func newRouter(t testing.TB, yaml string) *router.Router {
	t.Helper()
	cfg, err := config.Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	r, err := router.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// loadRouter builds a router from a config file.
func loadRouter(t testing.TB, path string) *router.Router {
	t.Helper()
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := router.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// raw turns test text into params: "" is absent params.
func raw(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}

// allNamespaces routes the namespaces the method tests use to one backend.
const allNamespaces = `backends:
  node: http://127.0.0.1:8091
urls:
  appbase: node
  hived: node
  steemd: node
  bridge: node
  hive: node
`
