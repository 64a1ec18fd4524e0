package gateway

import (
	"context"
	"net/http"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/quota"
	"github.com/hivegate/hivegate/server"
	"github.com/hivegate/hivegate/stream"
)

// The block and operation streams (streams:, package stream) are wired
// into the gateway here: one hub (the chain follower and its window) for
// the gateway's life, reading through the current generation's dispatcher
// and LIB tracker, started with the gateway; each generation's handler
// tree mounts hive.stream.v1 beside the typed services and the JSON
// streams under /stream/. The streams section needs a restart to change.

// streams is the gateway's stream hub and its front ends.
type streams struct {
	hub  *stream.Hub
	svc  *stream.Service
	stop context.CancelFunc // ends the follower (Close)
	done chan struct{}      // closed when the follower has stopped
}

// newStreams builds the streams of cfg, nil when streams.enabled is false.
func (g *Gateway) newStreams(cfg *config.Config) *streams {
	s := cfg.Streams
	if !s.Enabled {
		return nil
	}
	hub := stream.NewHub(stream.Options{
		Chain:          stream.DispatchChain{Dispatcher: g.Dispatcher, LIB: g.streamLIB, Hooks: g.streamHooks},
		Window:         s.Window,
		Buffer:         s.Buffer,
		MaxSubscribers: s.MaxSubscribers,
		BlockInterval:  s.BlockInterval,
		HistoryRate:    s.HistoryRate,
		Logger:         g.log,
		Now:            g.opts.StreamNow,
	})
	return &streams{hub: hub, done: make(chan struct{}), svc: stream.NewService(hub, stream.ServiceOptions{
		SendTimeout: s.SendTimeout,
		WS:          stream.WSLimits{MaxSubscriptions: s.WSMaxSubscriptions},
	})}
}

// streamLIB is the LIB tracker's last irreversible block.
func (g *Gateway) streamLIB() (uint64, bool) {
	if lib := g.gen.Load().lib; lib != nil {
		return lib.LastIrreversible(), true
	}
	return 0, false
}

// streamHooks are the current generation's hooks for the calls stream
// clients make themselves (a broadcast).
func (g *Gateway) streamHooks() *dispatch.Hooks {
	if gen := g.gen.Load(); gen != nil {
		return gen.streamHooks
	}
	return nil
}

// startStreams runs the follower until ctx ends or the gateway closes.
func (g *Gateway) startStreams(ctx context.Context) {
	if g.streams == nil {
		return
	}
	ctx, g.streams.stop = context.WithCancel(ctx)
	go func() {
		defer close(g.streams.done)
		g.streams.hub.Run(ctx)
	}()
}

// closeStreams stops the follower and waits for it.
func (g *Gateway) closeStreams() {
	if g.streams != nil && g.streams.stop != nil {
		g.streams.stop()
		<-g.streams.done
	}
}

// mountStreams adds the JSON streams to mux and returns the Connect
// service.
func (g *Gateway) mountStreams(mux *http.ServeMux, quotas *quota.Policy) []server.Service {
	if g.streams == nil {
		return nil
	}
	// A broadcast made over a WebSocket subscription is counted by the
	// quotas as a typed call is (its request, as quotaHTTP gives a POST's).
	h := quotaStreamHTTP(quotas, g.streams.svc.Handler())
	if g.policy != nil {
		// A broadcast made over a WebSocket subscription meets the token
		// policy as a typed call does.
		h = g.policy.PolicyStream(h)
	}
	for _, p := range stream.Paths {
		mux.Handle(p, h)
	}
	return []server.Service{{Name: stream.ServiceName, Handler: g.streams.svc.ConnectHandler}}
}

// StreamHub is the gateway's stream hub, nil when streams are off.
func (g *Gateway) StreamHub() *stream.Hub {
	if g.streams == nil {
		return nil
	}
	return g.streams.hub
}
