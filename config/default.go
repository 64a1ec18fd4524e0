package config

import (
	_ "embed"
	"fmt"
	"os"
)

//go:embed default.yaml
var defaultYAML []byte

// DefaultSource names the embedded default config in messages.
const DefaultSource = "(embedded default)"

// NodeURLEnv is the environment variable the embedded default reads the node
// backend's URL from when no flag gives it.
const NodeURLEnv = "HIVEGATE_NODE_URL"

// Default returns the embedded default config with its one backend, `hived`,
// at nodeURL; an empty nodeURL is read from HIVEGATE_NODE_URL.
func Default(nodeURL string) (*Config, error) {
	from := "node URL argument"
	if nodeURL == "" {
		nodeURL, from = os.Getenv(NodeURLEnv), NodeURLEnv
	}
	if nodeURL == "" {
		return nil, fmt.Errorf("no config file and no node URL: pass --config FILE, --node-url URL or set %s", NodeURLEnv)
	}
	if err := checkURL(nodeURL); err != nil {
		return nil, &Error{Pos: Pos{File: from}, Key: "backends.hived", Err: err}
	}
	cfg, err := parseModern(DefaultSource+".yaml", defaultYAML)
	if err != nil {
		return nil, err
	}
	cfg.Source = DefaultSource
	cfg.Backends = []Backend{{Name: "hived", URL: nodeURL, Pos: Pos{File: from}}}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// DefaultYAML returns the embedded default config's text (for docs and
// `hivegate config default`).
func DefaultYAML() []byte { return append([]byte(nil), defaultYAML...) }
