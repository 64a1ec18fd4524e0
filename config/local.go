package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Drone 1.28.6 merges a config.local.yaml over config.yaml when there is
// one (src/config.rs parse_file): deployment settings (metrics, logging)
// live there so that config.yaml can be updated without conflicts. hivegate
// does the same for any NAME.yaml: its NAME.local.yaml (the name Drone
// builds by replacing ".yaml" with ".local.yaml") is deep-merged over it,
// mappings key by key, anything else replaced whole, before the keys are
// read. Errors name the file each value came from.

// localName returns the local override file of a .yaml config, "" for
// other names.
func localName(path string) string {
	if !strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".local.yaml") {
		return ""
	}
	return strings.ReplaceAll(path, ".yaml", ".local.yaml")
}

// loadWithLocal loads path with its local override file merged over it. ok
// is false when there is no such file (then path loads on its own).
func loadWithLocal(path string, data []byte) (cfg *Config, ok bool, err error) {
	local := localName(path)
	if local == "" {
		return nil, false, nil
	}
	ldata, err := os.ReadFile(local)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	root, err := fromYAML(path, data)
	if err != nil {
		return nil, true, err
	}
	over, err := fromYAML(local, ldata)
	if err != nil {
		return nil, true, err
	}
	files := map[*yaml.Node]string{}
	markFile(over, local, files)
	cfg, err = load(path, mergeNodes(root, over), (*decoder).modern, files, func(cfg *Config) {
		cfg.Warnings = append([]string{fmt.Sprintf("%s: merged over %s, as Drone does with config.local.yaml", local, path)}, cfg.Warnings...)
	})
	return cfg, true, err
}

// markFile records in files that n and every value under it came from file.
func markFile(n *yaml.Node, file string, files map[*yaml.Node]string) {
	files[n] = file
	for _, c := range n.Content {
		markFile(c, file, files)
	}
}

// mergeNodes deep-merges over into base: mappings key by key, anything
// else replaced by over's value.
func mergeNodes(base, over *yaml.Node) *yaml.Node {
	if base.Kind != yaml.MappingNode || over.Kind != yaml.MappingNode {
		return over
	}
	for i := 0; i+1 < len(over.Content); i += 2 {
		found := false
		for j := 0; j+1 < len(base.Content); j += 2 {
			if base.Content[j].Value == over.Content[i].Value {
				base.Content[j+1] = mergeNodes(base.Content[j+1], over.Content[i+1])
				found = true
				break
			}
		}
		if !found {
			base.Content = append(base.Content, over.Content[i], over.Content[i+1])
		}
	}
	return base
}
