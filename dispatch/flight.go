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
	// cancel is called when the last waiter leaves before the outcome.
	cancel func()
}

// do runs fn once per key among concurrent callers. leader reports whether
// this caller started the call (the others were coalesced onto it).
func (f *flights) do(ctx context.Context, key string, fn func(context.Context) outcome) (out outcome, leader bool) {
	var callCtx context.Context
	fl, leader := f.join(key, func() func() {
		// The upstream call outlives any one client: it runs on a context
		// detached from the leader's and is cancelled only when no client
		// waits any more.
		var cancel context.CancelFunc
		callCtx, cancel = context.WithCancel(context.WithoutCancel(ctx))
		return cancel
	})
	if leader {
		go func() {
			out := fn(callCtx)
			f.finish(key, fl, out)
			fl.cancel()
		}()
	}
	return f.wait(ctx, key, fl), leader
}

// join makes the caller a waiter of key's flight. When there is none it
// starts one (leader true), whose cancellation start returns: the leader
// then makes the call and ends the flight with finish.
func (f *flights) join(key string, start func() (cancel func())) (fl *flight, leader bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fl, ok := f.m[key]; ok {
		fl.waiters++
		return fl, false
	}
	if f.m == nil {
		f.m = map[string]*flight{}
	}
	fl = &flight{done: make(chan struct{}), waiters: 1, cancel: start()}
	f.m[key] = fl
	return fl, true
}

// finish records fl's outcome and wakes its waiters.
func (f *flights) finish(key string, fl *flight, out outcome) {
	fl.out = out
	f.mu.Lock()
	if f.m[key] == fl {
		delete(f.m, key)
	}
	f.mu.Unlock()
	close(fl.done)
}

// wait returns fl's outcome, or ctx's error when ctx ends first: then the
// caller stops waiting, and the last waiter to leave cancels the call.
func (f *flights) wait(ctx context.Context, key string, fl *flight) outcome {
	select {
	case <-fl.done:
		return fl.out
	case <-ctx.Done():
		f.mu.Lock()
		fl.waiters--
		last := fl.waiters == 0
		if last && f.m[key] == fl {
			delete(f.m, key)
		}
		f.mu.Unlock()
		if last {
			fl.cancel()
		}
		return outcome{err: ctx.Err()}
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
