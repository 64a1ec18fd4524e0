package dispatch

import (
	"context"
	"sync"
)

// flights coalesces concurrent misses for one key into one upstream call.
// Unlike x/sync/singleflight it counts waiters: when every client waiting on
// a call has gone away, the upstream call is cancelled, and a client that goes
// away stops waiting at once while the others keep theirs.
type flights struct {
	mu sync.Mutex
	m  map[string]*flight
}

type flight struct {
	done    chan struct{}
	out     outcome
	waiters int
	cancel  context.CancelFunc
}

// do runs fn once per key among concurrent callers. leader reports whether
// this caller started the call (the others were coalesced onto it).
func (f *flights) do(ctx context.Context, key string, fn func(context.Context) outcome) (out outcome, leader bool) {
	f.mu.Lock()
	if f.m == nil {
		f.m = map[string]*flight{}
	}
	fl, ok := f.m[key]
	if ok {
		fl.waiters++
	} else {
		// The upstream call outlives any one client: it runs on a context
		// detached from the leader's and is cancelled only when no client
		// waits any more.
		callCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		fl = &flight{done: make(chan struct{}), waiters: 1, cancel: cancel}
		f.m[key] = fl
		go func() {
			fl.out = fn(callCtx)
			f.mu.Lock()
			if f.m[key] == fl {
				delete(f.m, key)
			}
			f.mu.Unlock()
			cancel()
			close(fl.done)
		}()
	}
	f.mu.Unlock()
	select {
	case <-fl.done:
		return fl.out, !ok
	case <-ctx.Done():
		f.mu.Lock()
		fl.waiters--
		if fl.waiters == 0 {
			fl.cancel()
			if f.m[key] == fl {
				delete(f.m, key)
			}
		}
		f.mu.Unlock()
		return outcome{err: ctx.Err()}, !ok
	}
}

// stats counts the flights some client waits on and their waiters.
func (f *flights) stats() FlightStats {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := FlightStats{Calls: len(f.m)}
	for _, fl := range f.m {
		st.Waiters += fl.waiters
	}
	return st
}
