package gateway

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/hivegate/hivegate/config"
)

// ReloadResult tells what a config reload did.
type ReloadResult struct {
	// Source is the config file loaded.
	Source string `json:"source"`
	// Warnings are the new config's own warnings (config.Config.Warnings).
	Warnings []string `json:"warnings,omitempty"`
	// RestartRequired lists changed settings that only take effect when
	// hivegate restarts (listener addresses, cache size, Redis, tracing,
	// connection timeouts); the running values stay in use.
	RestartRequired []string `json:"restart_required,omitempty"`
}

// ErrClosed is returned by a reload after Close.
var ErrClosed = errors.New("the gateway is closed")

// ReloadFromSource loads the config again (Options.ConfigLoader, or the
// running config's source file) and applies it with Reload. Errors are
// logged and returned; the running config stays in use.
func (g *Gateway) ReloadFromSource() (ReloadResult, error) {
	load := g.opts.ConfigLoader
	if load == nil {
		src := g.Config().Source
		load = func() (*config.Config, error) {
			if src == "" || strings.HasPrefix(src, "(") {
				return nil, fmt.Errorf("the running config (%s) is not a file: nothing to reload", src)
			}
			return config.Load(src)
		}
	}
	cfg, err := load()
	if err != nil {
		g.metrics.ObserveReload(false)
		g.log.Error("config reload rejected: the running config stays in use", "err", err)
		return ReloadResult{}, err
	}
	return g.Reload(cfg)
}

// Reload replaces the routes, TTLs, timeouts, retries, limits and backends
// with those of cfg, atomically: requests already running finish on the
// old config, later ones run on the new one, none fails because of the
// swap. The cache (and the shared Redis tier) survive, so cached answers
// stay; the new routes' TTLs apply to what is stored from then on. The old
// backend connections close once their calls in flight are done. An
// invalid cfg (no valid router or backend pool) is rejected with its error
// and the running config stays in use. Settings that cannot change while
// running are listed in RestartRequired and logged as warnings.
func (g *Gateway) Reload(cfg *config.Config) (ReloadResult, error) {
	res, err := g.reload(cfg)
	if err != nil {
		g.metrics.ObserveReload(false)
		g.log.Error("config reload rejected: the running config stays in use", "source", cfg.Source, "err", err)
		return res, err
	}
	g.metrics.ObserveReload(true)
	for _, w := range res.Warnings {
		g.log.Warn("config", "warning", w)
	}
	for _, w := range res.RestartRequired {
		g.log.Warn("config reload: restart required", "setting", w)
	}
	// Last, so that a reader of the log sees the warnings before it.
	g.log.Info("config reloaded", "source", cfg.Source, "backends", len(cfg.Backends), "urls", len(cfg.URLs), "restart_required", len(res.RestartRequired))
	return res, nil
}

func (g *Gateway) reload(cfg *config.Config) (ReloadResult, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.closed:
		return ReloadResult{}, ErrClosed
	default:
	}
	old := g.gen.Load()
	gen, err := g.newGeneration(cfg, old)
	if err != nil {
		return ReloadResult{}, err
	}
	if g.runCtx != nil {
		gen.start(g.runCtx)
	}
	g.gen.Store(gen)
	g.retire(old)
	g.reloadAuthApps(cfg) // auth_wiring.go
	return ReloadResult{Source: cfg.Source, Warnings: cfg.Warnings, RestartRequired: restartRequired(g.startCfg, cfg)}, nil
}

// restartRequired lists the settings of next that differ from the running
// ones (those the process started with) and cannot change live.
func restartRequired(running, next *config.Config) []string {
	var out []string
	diff := func(key string, a, b any) {
		if !reflect.DeepEqual(a, b) {
			out = append(out, fmt.Sprintf("%s changed (%v → %v): restart hivegate to apply it", key, a, b))
		}
	}
	diff("hivegate.hostname", running.Settings.Hostname, next.Settings.Hostname)
	diff("hivegate.port", running.Settings.Port, next.Settings.Port)
	diff("hivegate.cache_max_capacity", running.Settings.CacheMaxCapacity, next.Settings.CacheMaxCapacity)
	diff("hivegate.admin_listen", running.Ops.AdminListen, next.Ops.AdminListen)
	diff("hivegate.metrics.namespace", running.Ops.Namespace(), next.Ops.Namespace())
	rt, nt := running.Ops.Tracing, next.Ops.Tracing
	rt.Pos, nt.Pos = config.Pos{}, config.Pos{}
	diff("hivegate.tracing", fmt.Sprintf("%+v", rt), fmt.Sprintf("%+v", nt))
	rc, nc := running.Cache, next.Cache
	rc.Pos, nc.Pos = config.Pos{}, config.Pos{}
	if !reflect.DeepEqual(rc, nc) {
		out = append(out, "cache (the shared Redis tier) changed: restart hivegate to apply it")
	}
	out = append(out, authRestartRequired(running, next)...) // auth_wiring.go
	rl, nl := running.Limits.WithDefaults(), next.Limits.WithDefaults()
	diff("limits.read_header_timeout", rl.ReadHeaderTimeout, nl.ReadHeaderTimeout)
	diff("limits.read_timeout", rl.ReadTimeout, nl.ReadTimeout)
	diff("limits.write_timeout", rl.WriteTimeout, nl.WriteTimeout)
	diff("limits.idle_timeout", rl.IdleTimeout, nl.IdleTimeout)
	diff("limits.max_conns_per_client", rl.MaxConnsPerClient, nl.MaxConnsPerClient)
	diff("limits.max_concurrent_streams", rl.MaxConcurrentStreams, nl.MaxConcurrentStreams)
	diff("limits.max_header_bytes", rl.MaxHeaderBytes, nl.MaxHeaderBytes)
	return out
}
