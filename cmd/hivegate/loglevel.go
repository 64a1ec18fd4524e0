package main

import (
	"context"
	"log/slog"
	"strings"
)

// rustLogEnv is Drone's log setting (env_logger's RUST_LOG), which
// haf_api_node's drone.yaml sets (DRONE_LOG_LEVEL, by default
// "warn,access_log=info"). hivegate reads the same variable so that a
// container swapped in for Drone logs what Drone would.
const rustLogEnv = "RUST_LOG"

// accessLogMsg is the message of the access log's one line per request
// (gateway/ops_http.go): the access_log target of RUST_LOG.
const accessLogMsg = "request"

// Levels beyond slog's four: RUST_LOG's trace, and off.
const (
	levelTrace = slog.LevelDebug - 4
	levelOff   = slog.LevelError + 100
)

// logLevels are the levels RUST_LOG asks for: base for hivegate's own
// logs, access for its access log (msg=request).
type logLevels struct {
	base, access slog.Level
	// ignored are the directives hivegate has no use for: other crates'
	// targets (actix_web=info) and what it cannot parse.
	ignored []string
}

// rustLogLevels maps a RUST_LOG value to slog levels:
//
//   - a bare level (error, warn, info, debug, trace, off) sets both levels;
//   - drone=LEVEL or hivegate=LEVEL (also drone::module=LEVEL) sets the
//     level of hivegate's own logs;
//   - access_log=LEVEL sets the access log's: it is written at info, so
//     info, debug or trace turn it on and warn, error or off turn it off;
//   - a target alone (access_log) means trace, as in env_logger;
//   - other targets (actix_web=info, hyper=warn) and a /regex filter are
//     ignored.
//
// Without a bare level, hivegate's own logs are at error (never off) and
// the access log is off, as env_logger turns off a target no directive
// names. An empty value keeps hivegate's default: info for both.
func rustLogLevels(spec string) logLevels {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return logLevels{base: slog.LevelInfo, access: slog.LevelInfo}
	}
	var (
		ignored               []string
		bare, own, access     slog.Level
		hasBare, hasOwn, hasA bool
	)
	if i := strings.IndexByte(spec, '/'); i >= 0 {
		ignored = append(ignored, spec[i:])
		spec = spec[:i]
	}
	for _, d := range strings.Split(spec, ",") {
		d = strings.TrimSpace(d)
		if d == "" {
			continue
		}
		target, lvl, hasLevel := strings.Cut(d, "=")
		if !hasLevel {
			if l, ok := rustLevel(d); ok {
				bare, hasBare = l, true
				continue
			}
			lvl = "trace"
		}
		l, ok := rustLevel(lvl)
		if !ok {
			ignored = append(ignored, d)
			continue
		}
		switch root, _, _ := strings.Cut(strings.TrimSpace(target), "::"); root {
		case "drone", "hivegate":
			own, hasOwn = l, true
		case "access_log":
			access, hasA = l, true
		default:
			ignored = append(ignored, d)
		}
	}
	out := logLevels{base: slog.LevelError, access: levelOff, ignored: ignored}
	if hasBare {
		out.base, out.access = bare, bare
	}
	if hasOwn {
		out.base = own
	}
	if hasA {
		out.access = access
	}
	return out
}

// rustLevel parses one of env_logger's level names.
func rustLevel(s string) (slog.Level, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "trace":
		return levelTrace, true
	case "debug":
		return slog.LevelDebug, true
	case "info":
		return slog.LevelInfo, true
	case "warn", "warning":
		return slog.LevelWarn, true
	case "error":
		return slog.LevelError, true
	case "off":
		return levelOff, true
	}
	return 0, false
}

// options are the handler options of the logger: it lets through the
// lower of the two levels (and warnings, for warnIgnored); wrap filters
// each record by its own.
func (l logLevels) options() *slog.HandlerOptions {
	return &slog.HandlerOptions{Level: min(l.base, l.access, slog.LevelWarn)}
}

// wrap returns h filtered by l.
func (l logLevels) wrap(h slog.Handler) slog.Handler {
	return levelHandler{h: h, base: l.base, access: l.access}
}

// warnIgnored logs the RUST_LOG directives that mean nothing to hivegate,
// as env_logger warns about a directive it cannot parse: whatever the
// levels, so that a misspelt RUST_LOG does not silence its own warning.
func (l logLevels) warnIgnored(logger *slog.Logger) {
	if lh, ok := logger.Handler().(levelHandler); ok {
		logger = slog.New(lh.h)
	}
	if len(l.ignored) > 0 {
		logger.Warn("RUST_LOG directives ignored: hivegate reads a bare level, drone= or hivegate= (its own logs) and access_log= (its access log)",
			"ignored", strings.Join(l.ignored, ","))
	}
}

// levelHandler drops records below the level of their kind: the access
// log's (msg=request) or the base one.
type levelHandler struct {
	h            slog.Handler
	base, access slog.Level
}

func (h levelHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= min(h.base, h.access) && h.h.Enabled(ctx, l)
}

func (h levelHandler) Handle(ctx context.Context, r slog.Record) error {
	floor := h.base
	if r.Message == accessLogMsg {
		floor = h.access
	}
	if r.Level < floor {
		return nil
	}
	return h.h.Handle(ctx, r)
}

func (h levelHandler) WithAttrs(as []slog.Attr) slog.Handler {
	h.h = h.h.WithAttrs(as)
	return h
}

func (h levelHandler) WithGroup(name string) slog.Handler {
	h.h = h.h.WithGroup(name)
	return h
}
