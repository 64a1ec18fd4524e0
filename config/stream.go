package config

// The `streams:` section (issue 31), self-contained in this file so that it
// can move as one piece: the block and operation streams (package stream)
// over Connect, gRPC, gRPC-Web, Server-Sent Events and WebSocket. The
// hooks elsewhere in the package are one field of Config (config.go), its
// default (config.go) and one case in modernFrom (modern.go).

import "time"

// StreamSettings are the `streams:` section.
type StreamSettings struct {
	// Enabled serves the streams and runs the chain follower
	// (streams.enabled, default true).
	Enabled bool
	// MaxSubscribers bounds the subscribers of the gateway at once, every
	// front end together (streams.max_subscribers, default 10000).
	MaxSubscribers int
	// Buffer is how many blocks (and fork messages) a live subscriber may
	// fall behind before its stream ends with resource_exhausted and its
	// cursor (streams.buffer, default 100; at most window).
	Buffer int
	// Window is how many recent blocks the follower keeps in memory for
	// subscribers that catch up (streams.window, default 1200: an hour).
	Window int
	// BlockInterval is the chain's block interval, the follower's polling
	// period (streams.block_interval, default 3s).
	BlockInterval time.Duration
	// SendTimeout bounds the write of one message to a client; a client
	// that takes longer is cut (streams.send_timeout, default 30s).
	SendTimeout time.Duration
	// WSMaxSubscriptions bounds the subscriptions of one WebSocket
	// connection (streams.ws_max_subscriptions, default 10).
	WSMaxSubscriptions int
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
	maxStreamSubscribers            = 1_000_000
	maxStreamWindow                 = 100_000
)

func defaultStreamSettings() StreamSettings {
	return StreamSettings{
		Enabled: true, MaxSubscribers: DefaultStreamMaxSubscribers, Buffer: DefaultStreamBuffer,
		Window: DefaultStreamWindow, BlockInterval: DefaultStreamBlockInterval,
		SendTimeout: DefaultStreamSendTimeout, WSMaxSubscriptions: DefaultStreamWSMaxSubscriptions,
	}
}

// streamSection reads the `streams:` section; k is its key node.
func (d *decoder) streamSection(cfg *Config, k, n *node) error {
	s := defaultStreamSettings()
	s.Pos = d.pos(k)
	if n.kind == kindScalar && n.null {
		cfg.Streams = s
		return nil
	}
	var bufferNode *node
	err := d.fields(n, "streams", func(key string, _, v *node) (bool, error) {
		path := "streams." + key
		var err error
		switch key {
		case "enabled":
			s.Enabled, err = d.boolean(v, path)
		case "max_subscribers":
			s.MaxSubscribers, err = d.intIn(v, path, 1, maxStreamSubscribers)
		case "buffer":
			bufferNode = v
			s.Buffer, err = d.intIn(v, path, 1, maxStreamWindow)
		case "window":
			s.Window, err = d.intIn(v, path, 10, maxStreamWindow)
		case "block_interval":
			s.BlockInterval, err = d.seconds(v, path, 100*time.Millisecond, time.Minute)
		case "send_timeout":
			s.SendTimeout, err = d.seconds(v, path, time.Second, 10*time.Minute)
		case "ws_max_subscriptions":
			s.WSMaxSubscriptions, err = d.intIn(v, path, 1, 1000)
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return err
	}
	if s.Buffer > s.Window && bufferNode == nil {
		s.Buffer = s.Window // the default buffer, under a small window
	}
	if s.Buffer > s.Window {
		return d.errf(bufferNode, "streams.buffer", "buffer %d is larger than streams.window (%d): a subscriber can only lag within the window", s.Buffer, s.Window)
	}
	cfg.Streams = s
	return nil
}
