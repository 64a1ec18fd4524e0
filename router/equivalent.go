package router

import (
	"fmt"
	"strings"

	"github.com/hivegate/hivegate/config"
)

// setEquivalents records the renames of equivalent_methods (Drone's
// semantics, see parser.parseCall) and refuses renames that loop or whose
// destination is not a method the router can parse, naming the entry's
// file, line and key.
func (p *parser) setEquivalents(entries []config.Entry[string]) error {
	if len(entries) == 0 {
		return nil
	}
	p.equiv = make(map[string]string, len(entries))
	for _, e := range entries {
		p.equiv[e.Key] = e.Value
	}
	for _, e := range entries {
		seen := map[string]bool{e.Key: true}
		chain := []string{e.Key}
		dest := e.Value
		for {
			var c Call
			if err := parseDotted(&c, dest, p.defaultNS); err != nil {
				return &config.Error{Pos: e.Pos, Key: "equivalent_methods." + e.Value, Err: fmt.Errorf("destination %q: %v", dest, err)}
			}
			p.translateCall(&c)
			key := string(c.appendPath(nil))
			next, renamed := p.equiv[key]
			if !renamed {
				break
			}
			chain = append(chain, key)
			if seen[key] {
				return &config.Error{Pos: e.Pos, Key: "equivalent_methods." + e.Value, Err: fmt.Errorf("renames loop: %s", strings.Join(chain, " -> "))}
			}
			seen[key] = true
			if len(chain) > maxRenames {
				return &config.Error{Pos: e.Pos, Key: "equivalent_methods." + e.Value, Err: fmt.Errorf("more than %d renames in a row: %s", maxRenames, strings.Join(chain, " -> "))}
			}
			dest = next
		}
	}
	return nil
}
