package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/router"
)

// hangGuard bounds every wait so that a bug fails a test instead of hanging it.
const hangGuard = 5 * time.Second

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestFlightsCoalesce(t *testing.T) {
	t.Parallel()
	const callers = 10
	var f flights
	var calls atomic.Int64
	release := make(chan struct{})
	fn := func(ctx context.Context) outcome {
		calls.Add(1)
		select {
		case <-release:
			return outcome{result: json.RawMessage(`"one"`)}
		case <-ctx.Done():
			return outcome{err: ctx.Err()}
		}
	}
	var leaders atomic.Int64
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			out, leader := f.do(context.Background(), "k", fn)
			if leader {
				leaders.Add(1)
			}
			if string(out.result) != `"one"` || out.err != nil {
				t.Errorf("outcome %s %v", out.result, out.err)
			}
		})
	}
	waitUntil(t, "every caller to wait", func() bool { return f.stats() == FlightStats{Calls: 1, Waiters: callers} })
	close(release)
	wg.Wait()
	if c := calls.Load(); c != 1 {
		t.Errorf("fn ran %d times, want 1", c)
	}
	if l := leaders.Load(); l != 1 {
		t.Errorf("%d leaders, want 1", l)
	}
	if st := f.stats(); st != (FlightStats{}) {
		t.Errorf("flights left after the call: %+v", st)
	}
}

func TestFlightsCancellation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name            string
		callers, leave  int
		wantUpstreamEnd bool // the call's context is cancelled
	}{
		{"one of three leaves", 3, 1, false},
		{"the only caller leaves", 1, 1, true},
		{"all of four leave", 4, 4, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var f flights
			release, ended := make(chan struct{}), make(chan struct{})
			fn := func(ctx context.Context) outcome {
				select {
				case <-release:
					return outcome{result: json.RawMessage(`1`)}
				case <-ctx.Done():
					close(ended)
					return outcome{err: ctx.Err()}
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			results := make([]outcome, tc.callers)
			var wg sync.WaitGroup
			for i := range tc.callers {
				c := context.Background()
				if i < tc.leave {
					c = ctx
				}
				wg.Go(func() { results[i], _ = f.do(c, "k", fn) })
			}
			waitUntil(t, "every caller to wait", func() bool { return f.stats().Waiters == tc.callers })
			cancel()
			waitUntil(t, "the leavers to go", func() bool { return f.stats().Waiters == tc.callers-tc.leave })
			if tc.wantUpstreamEnd {
				select {
				case <-ended:
				case <-time.After(hangGuard):
					t.Fatal("the call's context was not cancelled when every caller had left")
				}
			} else {
				close(release)
			}
			wg.Wait()
			for i, r := range results {
				left := i < tc.leave
				if left && !errors.Is(r.err, context.Canceled) {
					t.Errorf("caller %d left but got %s %v", i, r.result, r.err)
				}
				if !left && (r.err != nil || string(r.result) != "1") {
					t.Errorf("caller %d stayed but got %s %v", i, r.result, r.err)
				}
			}
			select {
			case <-ended:
				if !tc.wantUpstreamEnd {
					t.Error("the call was cancelled while a caller still waited")
				}
			default:
			}
		})
	}
}

func TestFlightsNewCallAfterAbandoned(t *testing.T) {
	t.Parallel()
	// After every caller left a flight, a new caller starts a new call even
	// while the abandoned one is still winding down.
	var f flights
	var n atomic.Int64
	stuck := make(chan struct{})
	defer close(stuck)
	ctx, cancel := context.WithCancel(context.Background())
	go f.do(ctx, "k", func(context.Context) outcome {
		n.Add(1)
		<-stuck // ignores its context: an upstream call slow to stop
		return outcome{}
	})
	waitUntil(t, "the first call", func() bool { return n.Load() == 1 })
	cancel()
	waitUntil(t, "the first flight to be dropped", func() bool { return f.stats() == FlightStats{} })
	out, leader := f.do(context.Background(), "k", func(context.Context) outcome {
		n.Add(1)
		return outcome{result: json.RawMessage(`2`)}
	})
	if !leader || string(out.result) != "2" || n.Load() != 2 {
		t.Errorf("leader %v result %s calls %d, want a new call", leader, out.result, n.Load())
	}
}

func TestErrorDetails(t *testing.T) {
	t.Parallel()
	if got := keyPath(`appbase.condenser_api.get_block.params=[1]`); got != "appbase.condenser_api.get_block" {
		t.Errorf("keyPath = %q", got)
	}
	if got := keyPath(`bridge.get_discussion`); got != "bridge.get_discussion" {
		t.Errorf("keyPath = %q", got)
	}
	err := fmt.Errorf("%w: method %q has an empty part", router.ErrInvalidMethod, "a..b")
	if got := invalidDetail(err); got != `method "a..b" has an empty part` {
		t.Errorf("invalidDetail = %q", got)
	}
}
