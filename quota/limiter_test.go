package quota_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/internal/redistest"
	"github.com/hivegate/hivegate/quota"
)

// clock is a settable clock shared by the limiters of a test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// tenPerMinute allows 10 units a minute, 5 at once.
var tenPerMinute = config.QuotaClass{Name: "ten", Limit: 10, Period: time.Minute, Burst: 5}

// step is one Admit and what it must answer.
type step struct {
	advance time.Duration
	weight  int
	ok      bool
	wait    time.Duration // when refused
}

// gcraSteps are the arithmetic of tenPerMinute: a unit every 6 s, a
// burst of 5 units; a call over the burst costs the burst.
var gcraSteps = []struct {
	name  string
	steps []step
}{
	{"burst then refused", []step{
		{0, 1, true, 0}, {0, 1, true, 0}, {0, 3, true, 0}, {0, 1, false, 6 * time.Second},
	}},
	{"refill one unit every 6 s", []step{
		{0, 5, true, 0}, {3 * time.Second, 1, false, 3 * time.Second}, {3 * time.Second, 1, true, 0},
		{0, 2, false, 12 * time.Second},
	}},
	{"weights: a heavy call needs room for all its units", []step{
		{0, 3, true, 0}, {0, 3, false, 6 * time.Second}, {0, 2, true, 0},
	}},
	{"weight 0 is free", []step{
		{0, 5, true, 0}, {0, 0, true, 0}, {0, 0, true, 0},
	}},
	{"over the burst costs the burst", []step{
		{0, 50, true, 0}, {0, 1, false, 6 * time.Second}, {30 * time.Second, 50, true, 0},
	}},
	{"idle refills to the burst, no more", []step{
		{time.Hour, 5, true, 0}, {0, 1, false, 6 * time.Second},
	}},
}

func runSteps(t *testing.T, clk *clock, lims []*quota.Limiter, s quota.Subject, steps []step) {
	t.Helper()
	for i, st := range steps {
		clk.Advance(st.advance)
		ok, wait := lims[i%len(lims)].Admit(context.Background(), s, st.weight)
		if ok != st.ok || (!ok && wait != st.wait) {
			t.Fatalf("step %d (weight %d, limiter %d): ok=%v wait=%v, want ok=%v wait=%v", i, st.weight, i%len(lims), ok, wait, st.ok, st.wait)
		}
	}
}

// TestLimiterInMemory checks the counting of one process: GCRA per
// subject, weights, the burst, Retry-After values.
func TestLimiterInMemory(t *testing.T) {
	t.Parallel()
	for _, tc := range gcraSteps {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			l, err := quota.NewLimiter(quota.Options{Now: clk.Now})
			if err != nil {
				t.Fatal(err)
			}
			runSteps(t, clk, []*quota.Limiter{l}, quota.SubjectForTest("a:192.0.2.1", tenPerMinute), tc.steps)
		})
	}
}

// TestLimiterSubjectsApart: one subject's calls do not count against
// another's.
func TestLimiterSubjectsApart(t *testing.T) {
	t.Parallel()
	clk := newClock()
	l, err := quota.NewLimiter(quota.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	a, b := quota.SubjectForTest("a:192.0.2.1", tenPerMinute), quota.SubjectForTest("a:192.0.2.2", tenPerMinute)
	if ok, _ := l.Admit(context.Background(), a, 5); !ok {
		t.Fatal("a's first call refused")
	}
	if ok, _ := l.Admit(context.Background(), a, 1); ok {
		t.Fatal("a admitted over its burst")
	}
	if ok, _ := l.Admit(context.Background(), b, 5); !ok {
		t.Fatal("b refused because of a's calls")
	}
}

// TestAdmitEach: a batch is charged in order, a heavy element that does
// not fit does not stop a light one after it.
func TestAdmitEach(t *testing.T) {
	t.Parallel()
	clk := newClock()
	l, err := quota.NewLimiter(quota.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	waits := make([]time.Duration, 5)
	l.AdmitEach(context.Background(), quota.SubjectForTest("k:x", tenPerMinute), []int{2, 2, 3, 1, 1}, waits)
	want := []time.Duration{0, 0, 12 * time.Second, 0, 6 * time.Second}
	for i := range want {
		if waits[i] != want[i] {
			t.Fatalf("waits %v, want %v", waits, want)
		}
	}
}

// TestLimiterSharedThroughRedis: two limiters (two replicas) on one real
// redis-server count one subject together, with the same arithmetic as
// one process; the counter expires in Redis when the bucket is full again.
func TestLimiterSharedThroughRedis(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	cache := config.CacheSettings{RedisURL: rs.URL(), RedisPrefix: "hg:", RedisTimeout: 5 * time.Second, RedisBreakerFailures: 5, RedisBreakerCooldown: time.Second}
	for i, tc := range gcraSteps {
		t.Run(tc.name, func(t *testing.T) {
			clk := newClock()
			var lims []*quota.Limiter
			for range 2 {
				l, err := quota.NewLimiter(quota.Options{Cache: cache, Now: clk.Now})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = l.Close() })
				lims = append(lims, l)
			}
			id := "k:case" + string(rune('a'+i))
			runSteps(t, clk, lims, quota.SubjectForTest(id, tenPerMinute), tc.steps)
			if n := rs.Client().Exists(context.Background(), "hg:q:"+id).Val(); n != 1 {
				t.Fatalf("counter hg:q:%s not in Redis (%d)", id, n)
			}
			ttl := rs.Client().PTTL(context.Background(), "hg:q:"+id).Val()
			if ttl <= 0 || ttl > time.Minute {
				t.Fatalf("counter expiry %v, want within the period", ttl)
			}
		})
	}
}

// TestLimiterRedisDown: with Redis unreachable, calls are counted in the
// process (never refused for Redis's sake), the failures are counted, and
// after redis_breaker_failures Redis is left alone.
func TestLimiterRedisDown(t *testing.T) {
	t.Parallel()
	port := redistest.FreePort(t) // nothing listens there
	reg := prometheus.NewRegistry()
	clk := newClock()
	l, err := quota.NewLimiter(quota.Options{
		Cache: config.CacheSettings{RedisURL: "redis://127.0.0.1:" + strconv.Itoa(port) + "/0", RedisPrefix: "hg:", RedisTimeout: 200 * time.Millisecond, RedisBreakerFailures: 2, RedisBreakerCooldown: time.Minute},
		Now:   clk.Now, Registerer: reg, Namespace: "hg",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	runSteps(t, clk, []*quota.Limiter{l}, quota.SubjectForTest("a:192.0.2.9", tenPerMinute), gcraSteps[0].steps)
	if got := metricValue(t, reg, "hg_quota_redis_errors_total", nil); got != 2 {
		t.Fatalf("hg_quota_redis_errors_total = %v, want 2 (then the breaker is open)", got)
	}
}

// metricValue is the sum of a metric's series whose labels include want.
func metricValue(t *testing.T, reg *prometheus.Registry, name string, want map[string]string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	series:
		for _, m := range mf.GetMetric() {
			got := map[string]string{}
			for _, lp := range m.GetLabel() {
				got[lp.GetName()] = lp.GetValue()
			}
			for k, v := range want {
				if got[k] != v {
					continue series
				}
			}
			total += m.GetCounter().GetValue()
		}
	}
	return total
}
