package config_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/router"
)

// FuzzLoadConfig feeds arbitrary bytes to both loaders. Parse must never
// panic, every error must be a *config.Error naming the file, and a config
// that loads must build a router without panicking.
func FuzzLoadConfig(f *testing.F) {
	for _, name := range []string{"testdata/drone.yaml", "testdata/jussi.json", "default.yaml"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(strings.HasSuffix(name, ".json"), data)
	}
	f.Fuzz(func(t *testing.T, legacy bool, data []byte) {
		name := "fuzz.yaml"
		if legacy {
			name = "fuzz.json"
		}
		cfg, err := config.Parse(name, data)
		if err != nil {
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is a %T, want *config.Error", err, err)
			}
			if !strings.HasPrefix(err.Error(), name) {
				t.Fatalf("error %q does not name %s", err, name)
			}
			return
		}
		if len(cfg.URLs) == 0 {
			t.Fatal("a config without urls loaded")
		}
		if _, err := router.New(cfg); err != nil {
			var ce *config.Error
			if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), name) {
				t.Fatalf("router.New error %v does not name the file", err)
			}
		}
	})
}
