package gateway

import (
	"strconv"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/metrics"
)

// fakeClock is an injected clock.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// TestCallStatsWindow: calls count in the window of the last minute and
// leave it when their bucket is older; the rate divides by the time the
// window covers (less than a minute while the gateway is younger).
func TestCallStatsWindow(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	st := newOperatorState(clock.now)
	obs := st.forConfig(&config.Config{URLs: []config.Entry[string]{{Key: "appbase", Value: "hived"}}})
	hit := dispatch.Result{Key: "appbase.condenser_api.get_block.params=[1]", Route: "appbase", Cache: dispatch.CacheHit}
	miss := dispatch.Result{Key: "appbase.condenser_api.get_block.params=[2]", Route: "appbase", Cache: dispatch.CacheMiss}
	failed := dispatch.Result{Key: "appbase.database_api.x", Route: "appbase", Cache: dispatch.CacheBypass,
		Err: jsonrpc.NewError(jsonrpc.KindUpstreamTimeout, "backend hived did not answer within 5s", nil)}

	clock.advance(5 * time.Second)
	obs.served(metrics.FrontendJSONRPC, &hit, metrics.OutcomeOK, time.Millisecond)
	obs.served(metrics.FrontendJSONRPC, &miss, metrics.OutcomeOK, 200*time.Millisecond)
	obs.served(metrics.FrontendJSONRPC, &failed, metrics.Outcome(failed.Err), 5*time.Second)
	clock.advance(5 * time.Second)

	byMethod := func() (map[string]MethodStat, time.Duration) {
		all, span := st.stats.window(clock.now())
		m := map[string]MethodStat{}
		for _, s := range all {
			m[s.Method] = s
		}
		return m, span
	}
	got, span := byMethod()
	if span != 10*time.Second {
		t.Errorf("window of a 10 s old gateway: %v", span)
	}
	want := MethodStat{Method: "appbase.condenser_api.get_block", Calls: 2, RatePerSecond: 0.2, CacheHits: 1,
		UpstreamCalls: 1, UpstreamTimeMS: 200, UpstreamMeanMS: 200}
	if got[want.Method] != want {
		t.Errorf("get_block: %+v, want %+v", got[want.Method], want)
	}
	if x := got["appbase.database_api.x"]; x.Errors != 1 || x.UpstreamCalls != 1 || x.UpstreamTimeMS != 5000 {
		t.Errorf("a timed-out call counts as an error that went upstream: %+v", x)
	}
	errs, total := st.errors.recent()
	if total != 1 || len(errs) != 1 || errs[0].Method != "appbase.database_api.x" || errs[0].Backend != "hived" ||
		errs[0].Kind != "upstream_timeout" || errs[0].Code != int(failed.Err.Code) || !errs[0].Time.Equal(clock.t.Add(-5*time.Second)) {
		t.Errorf("errors: %+v (total %d)", errs, total)
	}

	clock.advance(40 * time.Second) // 50 s after the calls: still in the window
	if got, span = byMethod(); got["appbase.condenser_api.get_block"].Calls != 2 || span != 50*time.Second {
		t.Errorf("50 s later: %+v over %v", got, span)
	}
	clock.advance(20 * time.Second) // 70 s after: out; the window is the five last buckets and the current one, begun at 70 s
	if got, span = byMethod(); len(got) != 0 || span != 50*time.Second {
		t.Errorf("70 s later the window still holds %+v (span %v)", got, span)
	}
}

// TestCallStatsBounded: clients sending made-up methods cannot grow the
// table past maxStatMethods; later methods count together.
func TestCallStatsBounded(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	st := newOperatorState(clock.now)
	obs := st.forConfig(&config.Config{})
	for i := range maxStatMethods + 5 {
		obs.served(metrics.FrontendJSONRPC, &dispatch.Result{Key: "appbase.api.m" + strconv.Itoa(i)}, metrics.OutcomeOK, 0)
	}
	all, _ := st.stats.window(clock.now())
	others := 0
	for _, m := range all {
		if m.Method == otherMethods {
			others = int(m.Calls)
		}
	}
	if len(all) != maxStatMethods+1 || others != 5 {
		t.Errorf("%d methods kept, %d calls under %q; want %d and 5", len(all), others, otherMethods, maxStatMethods+1)
	}
}

// TestErrorRingBounded: the ring keeps the last errorRingSize errors,
// newest first, and counts them all.
func TestErrorRingBounded(t *testing.T) {
	t.Parallel()
	var r errorRing
	for i := range errorRingSize + 20 {
		r.add(RecentError{Method: strconv.Itoa(i)})
	}
	errs, total := r.recent()
	if total != errorRingSize+20 || len(errs) != errorRingSize || errs[0].Method != strconv.Itoa(errorRingSize+19) ||
		errs[errorRingSize-1].Method != "20" {
		t.Errorf("total %d, %d kept, newest %q, oldest %q", total, len(errs), errs[0].Method, errs[len(errs)-1].Method)
	}
}
