package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
)

const quotaKeyHash = "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b"

// quotaYAML is a quotas section with one class, plus extra lines.
func quotaYAML(extra string) string {
	return minimal + "quotas:\n  classes:\n    public: {limit: 600}\n" + extra
}

// TestQuotaDefaults: off unless configured (`quotas:` alone included); a
// class's period is a minute and its burst its limit.
func TestQuotaDefaults(t *testing.T) {
	t.Parallel()
	off := mustParse(t, "d.yaml", minimal)
	if off.QuotasEnabled() || off.Quotas.KeyHeader != "X-Api-Key" || off.Quotas.DefaultWeight != 1 {
		t.Errorf("defaults: %+v", off.Quotas)
	}
	empty := mustParse(t, "e.yaml", minimal+"quotas:\n")
	if empty.QuotasEnabled() || empty.Quotas.KeyHeader != "X-Api-Key" || empty.Quotas.DefaultWeight != 1 || empty.Quotas.Pos.Line != 5 || len(empty.Warnings) != 0 {
		t.Errorf("quotas: alone: %+v, warnings %q", empty.Quotas, empty.Warnings)
	}
	cfg := mustParse(t, "q.yaml", quotaYAML("  per_address: public\n"))
	c, ok := cfg.Quotas.Class("public")
	if !cfg.QuotasEnabled() || !ok || c.Limit != 600 || c.Period != time.Minute || c.Burst != 600 {
		t.Errorf("class %+v (enabled %v)", c, cfg.QuotasEnabled())
	}
}

// TestQuotaKeys shows that every quotas key changes the loaded value.
func TestQuotaKeys(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		lines string
		check func(*config.Config) bool
	}{
		{"  per_address: public\n", func(c *config.Config) bool { return c.Quotas.PerAddress == "public" && c.QuotasEnabled() }},
		{"  key_header: X-Hive-Key\n", func(c *config.Config) bool { return c.Quotas.KeyHeader == "X-Hive-Key" }},
		{"  default_weight: 0\n", func(c *config.Config) bool { return c.Quotas.DefaultWeight == 0 }},
		{"  default_weight: 3\n", func(c *config.Config) bool { return c.Quotas.DefaultWeight == 3 }},
		{"  weights:\n    appbase.condenser_api.get_account_history: 10\n    hafah: 5\n", func(c *config.Config) bool {
			w := c.Quotas.Weights
			return len(w) == 2 && w[0].Key == "appbase.condenser_api.get_account_history" && w[0].Value == 10 && w[1].Value == 5 && w[0].Pos.Line == 9
		}},
		{"  keys:\n    acme: {sha256: " + strings.ToUpper(quotaKeyHash) + ", class: public}\n", func(c *config.Config) bool {
			k := c.Quotas.Keys
			return len(k) == 1 && k[0].Name == "acme" && k[0].SHA256 == quotaKeyHash && k[0].Class == "public" && c.QuotasEnabled()
		}},
		{"  classes:\n    big: {limit: 10, period: 1h, burst: 2}\n", func(c *config.Config) bool {
			b, ok := c.Quotas.Class("big")
			return ok && b.Limit == 10 && b.Period == time.Hour && b.Burst == 2
		}},
		{"  classes:\n    big: {limit: 10, period: 30}\n", func(c *config.Config) bool {
			b, ok := c.Quotas.Class("big")
			return ok && b.Period == 30*time.Second && b.Burst == 10
		}},
	}
	for _, tc := range testCases {
		t.Run(tc.lines, func(t *testing.T) {
			t.Parallel()
			yaml := quotaYAML(tc.lines)
			if strings.HasPrefix(tc.lines, "  classes:") {
				yaml = minimal + "quotas:\n" + tc.lines
			}
			if cfg := mustParse(t, "q.yaml", yaml); !tc.check(cfg) {
				t.Errorf("%q did not take effect: %+v", tc.lines, cfg.Quotas)
			}
		})
	}
}

// TestQuotaApp: an auth app may carry a quota class.
func TestQuotaApp(t *testing.T) {
	t.Parallel()
	yaml := strings.Replace(authYAML(""), "    - client_id: demo.app\n", "    - client_id: demo.app\n      quota: public\n", 1) + "quotas:\n  classes:\n    public: {limit: 5}\n"
	cfg := mustParse(t, "a.yaml", yaml)
	if a, ok := cfg.Auth.App("demo.app"); !ok || a.Quota != "public" || !cfg.QuotasEnabled() {
		t.Fatalf("app %+v, quotas enabled %v", a, cfg.QuotasEnabled())
	}
}

// TestQuotaErrors: every refusal names file, line and key, and never
// repeats what may be a key.
func TestQuotaErrors(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name, yaml, want string
	}{
		{"unknown key", quotaYAML("  per_addr: public\n"), "q.yaml:8: quotas.per_addr: unknown key"},
		{"unknown class key", minimal + "quotas:\n  classes:\n    x: {limit: 1, rate: 2}\n", "q.yaml:7: quotas.classes.x.rate: unknown key"},
		{"class without limit", minimal + "quotas:\n  classes:\n    public: {period: 60}\n", "q.yaml:7: quotas.classes.public.limit: required"},
		{"limit zero", minimal + "quotas:\n  classes:\n    public: {limit: 0}\n", "q.yaml:7: quotas.classes.public.limit: limit 0 out of range 1..1000000000"},
		{"period too long", minimal + "quotas:\n  classes:\n    public: {limit: 1, period: 48h}\n", "q.yaml:7: quotas.classes.public.period: 48h0m0s out of range 1s..24h"},
		{"bad class name", minimal + "quotas:\n  classes:\n    \"pub lic\": {limit: 1}\n", "q.yaml:7: quotas.classes.pub lic: want a name"},
		{"per_address unknown class", quotaYAML("  per_address: partner\n"), `q.yaml:8: quotas.per_address: unknown quota class "partner" (quotas.classes: public)`},
		{"key unknown class", quotaYAML("  keys:\n    acme: {sha256: " + quotaKeyHash + ", class: gold}\n"), `q.yaml:9: quotas.keys.acme.class: unknown quota class "gold"`},
		{"key without hash", quotaYAML("  keys:\n    acme: {class: public}\n"), "q.yaml:9: quotas.keys.acme.sha256: required"},
		{"key in clear", quotaYAML("  keys:\n    acme: {sha256: my-secret-api-key, class: public}\n"), "q.yaml:9: quotas.keys.acme.sha256: want the hex sha256 of the key (64 digits), never the key itself (the value, 17 characters, is not repeated here)"},
		{"key in clear, a number", quotaYAML("  keys:\n    acme: {sha256: 12345678901234567890, class: public}\n"), "q.yaml:9: quotas.keys.acme.sha256: want the hex sha256 of the key (64 digits), never the key itself (the value, 20 characters, is not repeated here)"},
		{"key hash not hex", quotaYAML("  keys:\n    acme: {sha256: " + strings.Repeat("z", 64) + ", class: public}\n"), "q.yaml:9: quotas.keys.acme.sha256: want the hex sha256"},
		{"same key twice", quotaYAML("  keys:\n    a: {sha256: " + quotaKeyHash + ", class: public}\n    b: {sha256: " + quotaKeyHash + ", class: public}\n"), "q.yaml:10: quotas.keys.b.sha256: the same key as quotas.keys.a"},
		{"weight negative", quotaYAML("  weights:\n    hived: -1\n"), "q.yaml:9: quotas.weights.hived: hived -1 out of range 0..1000000"},
		{"weight twice", quotaYAML("  weights:\n    hived: 1\n    hived.condenser_api: 2\n    hived: 3\n"), "q.yaml:11: quotas.weights.hived: duplicate key: also given on line 9"},
		{"header Authorization", quotaYAML("  key_header: Authorization\n"), "q.yaml:8: quotas.key_header: Authorization carries"},
		{"header not a header", quotaYAML("  key_header: 'x y'\n"), `q.yaml:8: quotas.key_header: "x y" is not an HTTP header name`},
		{"app unknown class", strings.Replace(authYAML(""), "    - client_id: demo.app\n", "    - client_id: demo.app\n      quota: gold\n", 1), "q.yaml:11: auth.apps[0].quota: unknown quota class \"gold\" (quotas.classes: none: add a quotas.classes section)"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := config.Parse("q.yaml", []byte(tc.yaml))
			if err == nil {
				t.Fatalf("loaded: want an error")
			}
			if !strings.HasPrefix(err.Error(), "q.yaml:") || tc.want != "" && !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %q, want %q…", err, tc.want)
			}
			if strings.Contains(err.Error(), "my-secret-api-key") || strings.Contains(err.Error(), "12345678901234567890") {
				t.Fatalf("error repeats the key: %q", err)
			}
		})
	}
}

// TestQuotaWarning: classes given to nothing limit nothing, and config
// check says so.
func TestQuotaWarning(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, "q.yaml", quotaYAML(""))
	if cfg.QuotasEnabled() || len(cfg.Warnings) != 1 || !strings.HasPrefix(cfg.Warnings[0], "q.yaml:5: quotas: no class is given to anything") {
		t.Fatalf("warnings %q", cfg.Warnings)
	}
}
