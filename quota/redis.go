package quota

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hivegate/hivegate/config"
)

// admitScript is gcra (limiter.go) run atomically in Redis on one
// subject's key: ARGV are now (µs), the tolerance (µs) and the costs (µs)
// of the request's calls; it returns each call's wait in µs (0: admitted)
// and stores the new theoretical arrival time with an expiry at which the
// bucket is full again. The clock is the gateway's (now), so that every
// replica counts with the same arithmetic as the in-memory store.
var admitScript = redis.NewScript(`
local now = tonumber(ARGV[1])
local tol = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local out = {}
for i = 3, #ARGV do
  local nxt = tat + tonumber(ARGV[i])
  local wait = nxt - now - tol
  if wait > 0 then
    out[#out + 1] = wait
  else
    out[#out + 1] = 0
    tat = nxt
  end
end
if tat > now then
  redis.call('SET', KEYS[1], string.format('%.0f', tat), 'PX', math.ceil((tat - now) / 1000) + 1)
end
return out
`)

// redisCounter keeps the counters in Redis, so that every replica sees
// every call. A failed operation is counted in memory instead; after
// breakerFailures failures in a row Redis is left alone for
// breakerCooldown. Redis is never a reason to refuse a call.
type redisCounter struct {
	c        *redis.Client
	prefix   string
	timeout  time.Duration
	now      func() time.Time
	failures int64
	cooldown time.Duration
	log      *slog.Logger

	consecutive atomic.Int64
	openUntil   atomic.Int64 // Unix nanoseconds; 0 while closed
	lastLog     atomic.Int64 // Unix nanoseconds of the last error logged
}

func newRedisCounter(s config.CacheSettings, now func() time.Time, log *slog.Logger) (*redisCounter, error) {
	opts, err := redis.ParseURL(s.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("%s: quotas: cache.redis_url: %s", s.Pos, config.RedactURL(s.RedisURL))
	}
	timeout := s.RedisTimeout
	if timeout <= 0 {
		timeout = config.DefaultRedisTimeout
	}
	opts.ReadTimeout, opts.WriteTimeout, opts.DialTimeout = timeout, timeout, 4*timeout
	opts.MaxRetries = -1 // a late answer is worth less than counting locally now
	return &redisCounter{
		c: redis.NewClient(opts), prefix: s.RedisPrefix + "q:", timeout: timeout, now: now,
		failures: int64(max(1, s.RedisBreakerFailures)), cooldown: s.RedisBreakerCooldown, log: log,
	}, nil
}

func (r *redisCounter) close() error { return r.c.Close() }

// admit runs the script; false means Redis could not answer (or its
// breaker is open) and the caller counts in memory.
func (r *redisCounter) admit(ctx context.Context, id string, now, tol int64, costs []int64, waits []time.Duration, m *instruments) bool {
	if until := r.openUntil.Load(); until != 0 && r.now().UnixNano() < until {
		return false
	}
	args := make([]any, 0, 2+len(costs))
	args = append(args, now, tol)
	for _, c := range costs {
		args = append(args, c)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.timeout)
	defer cancel()
	res, err := admitScript.Run(ctx, r.c, []string{r.prefix + id}, args...).Int64Slice()
	if err == nil && len(res) != len(costs) {
		err = fmt.Errorf("the script answered %d values for %d calls", len(res), len(costs))
	}
	if err != nil {
		m.redisErrors.Inc()
		if r.consecutive.Add(1) >= r.failures {
			r.openUntil.Store(r.now().Add(r.cooldown).UnixNano())
			r.consecutive.Store(0)
		}
		if t := r.now().UnixNano(); t-r.lastLog.Load() > int64(10*time.Second) {
			r.lastLog.Store(t)
			r.log.Warn("quotas: Redis failed; counting in this process", "err", err)
		}
		return false
	}
	r.consecutive.Store(0)
	r.openUntil.Store(0)
	for i, w := range res {
		waits[i] = time.Duration(w) * time.Microsecond
	}
	return true
}
