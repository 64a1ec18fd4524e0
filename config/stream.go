package config

// The `streams:` section (issue 31), self-contained in this file so that it
// can move as one piece: the block and operation streams (package stream)
// over Connect, gRPC, gRPC-Web, Server-Sent Events and WebSocket. The
// hooks elsewhere in the package are one field of Config (config.go) and
// its defaults (default.go). YAML only.

import "time"

// StreamSettings are the `streams:` section.
type StreamSettings struct {
	// Enabled serves the streams and runs the chain follower
	// (streams.enabled, default true).
	Enabled bool `yaml:"enabled"`
	// MaxSubscribers bounds the subscribers of the gateway at once, every
	// front end together (streams.max_subscribers, default 10000).
	MaxSubscribers int `yaml:"max_subscribers" range:"1..1000000"`
	// Buffer is how many blocks (and fork messages) a live subscriber may
	// fall behind before its stream ends with resource_exhausted and its
	// cursor (streams.buffer, default 100; at most window).
	Buffer int `yaml:"buffer" range:"1..100000"`
	// Window is how many recent blocks the follower keeps in memory for
	// subscribers that catch up (streams.window, default 1200: an hour).
	Window int `yaml:"window" range:"10..100000"`
	// BlockInterval is the chain's block interval, the follower's polling
	// period (streams.block_interval, default 3s).
	BlockInterval time.Duration `yaml:"block_interval" as:"seconds" range:"100ms..1m"`
	// SendTimeout bounds the write of one message to a client; a client
	// that takes longer is cut (streams.send_timeout, default 30s).
	SendTimeout time.Duration `yaml:"send_timeout" as:"seconds" range:"1s..10m"`
	// WSMaxSubscriptions bounds the subscriptions of one WebSocket
	// connection (streams.ws_max_subscriptions, default 10).
	WSMaxSubscriptions int `yaml:"ws_max_subscriptions" range:"1..1000"`
	// BlockWait is how many blocks past the follower's head a get_block or
	// get_block_header call may ask for and be held until the block exists
	// (bounded by the call's timeout), instead of being answered "no such
	// block" at once; 0 turns the wait off (streams.block_wait, default 20:
	// a minute of Hive). It is read at every call: a reload applies it.
	BlockWait int `yaml:"block_wait" range:"0..1200"`
	// HistoryRate bounds the blocks per second every subscriber together
	// reads from history, behind the window (streams.history_rate, default
	// 100): catch-up calls go past the rate limits and quotas of
	// clients, so they are bounded here.
	HistoryRate int `yaml:"history_rate" range:"1..100000"`
	// Pos is where the section was given (zero when it was not).
	Pos Pos
}

// Defaults and bounds of the streams section.
const (
	DefaultStreamMaxSubscribers     = 10000
	DefaultStreamBuffer             = 100
	DefaultStreamWindow             = 1200
	DefaultStreamBlockInterval      = 3 * time.Second
	DefaultStreamSendTimeout        = 30 * time.Second
	DefaultStreamWSMaxSubscriptions = 10
	DefaultStreamBlockWait          = 20
	DefaultStreamHistoryRate        = 100
)

func defaultStreamSettings() StreamSettings {
	return StreamSettings{
		Enabled: true, MaxSubscribers: DefaultStreamMaxSubscribers, Buffer: DefaultStreamBuffer,
		Window: DefaultStreamWindow, BlockInterval: DefaultStreamBlockInterval,
		SendTimeout: DefaultStreamSendTimeout, WSMaxSubscriptions: DefaultStreamWSMaxSubscriptions,
		BlockWait: DefaultStreamBlockWait, HistoryRate: DefaultStreamHistoryRate,
	}
}

// validate checks what no single key can: the buffer fits in the window
// (a default buffer shrinks to a small window; a given one is an error).
func (s *StreamSettings) validate(d *decoder, path string) error {
	s.Pos = d.pos(d.keyAt(path))
	if s.Buffer <= s.Window {
		return nil
	}
	if !d.given(path + ".buffer") {
		s.Buffer = s.Window // the default buffer, under a small window
		return nil
	}
	return d.errf(d.at(path+".buffer"), path+".buffer", "buffer %d is larger than streams.window (%d): a subscriber can only lag within the window", s.Buffer, s.Window)
}

// nullable: `streams:` alone keeps the defaults.
func (*StreamSettings) nullable() {}
