package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
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
	markFile(over, local)
	root = mergeNodes(root, over)
	if cfg, err = modernFrom(path, root); err != nil {
		return nil, true, err
	}
	cfg.Warnings = append([]string{fmt.Sprintf("%s: merged over %s, as Drone does with config.local.yaml", local, path)}, cfg.Warnings...)
	if err := cfg.validate(); err != nil {
		return nil, true, err
	}
	return cfg, true, nil
}

// markFile records on every value of n the file it came from.
func markFile(n *node, file string) {
	n.file = file
	for _, k := range n.keys {
		k.file = file
	}
	for _, v := range n.vals {
		markFile(v, file)
	}
}

// mergeNodes deep-merges over into base: mappings key by key, anything
// else replaced by over's value.
func mergeNodes(base, over *node) *node {
	if base.kind != kindMap || over.kind != kindMap {
		return over
	}
	for i, k := range over.keys {
		found := false
		for j, bk := range base.keys {
			if bk.str == k.str {
				base.vals[j] = mergeNodes(base.vals[j], over.vals[i])
				found = true
				break
			}
		}
		if !found {
			base.keys = append(base.keys, k)
			base.vals = append(base.vals, over.vals[i])
		}
	}
	return base
}
