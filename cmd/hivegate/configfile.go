package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/hivegate/hivegate/config"
)

// configEnv names the config file serve and route read when no --config
// is given, if that file exists. The container image sets it to
// /config.yaml, where haf_api_node (and Drone's image) mount the config.
const configEnv = "HIVEGATE_CONFIG"

// loadDefaultConfig loads the config when no --config is given: the file
// envFile (HIVEGATE_CONFIG) names when it exists, otherwise the embedded
// default with nodeURL (or HIVEGATE_NODE_URL). With neither the file nor a
// node URL the error says both are missing, so that a container started
// without its config mount says what to mount.
func loadDefaultConfig(nodeURL, envFile string) (*config.Config, error) {
	if envFile == "" {
		return config.Default(nodeURL)
	}
	_, err := os.Stat(envFile)
	switch {
	case err == nil:
		return config.Load(envFile)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s=%s: %w", configEnv, envFile, err)
	case nodeURL == "" && os.Getenv(config.NodeURLEnv) == "":
		return nil, fmt.Errorf("no config: %s names %s, which does not exist (mount a config file there), and no --node-url or %s for the embedded default",
			configEnv, envFile, config.NodeURLEnv)
	}
	return config.Default(nodeURL)
}
