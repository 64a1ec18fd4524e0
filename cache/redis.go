package cache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/redis/go-redis/v9"
)

// Defaults of the shared Redis tier, in one place.
const (
	// DefaultRedisPrefix namespaces every key hivegate writes to Redis.
	DefaultRedisPrefix = "hivegate:"
	// DefaultRedisTimeout bounds every Redis operation: a slow Redis must
	// not slow a client down by more than this.
	DefaultRedisTimeout = 50 * time.Millisecond
	// DefaultRedisCompressMinBytes is the smallest value stored
	// zstd-compressed.
	DefaultRedisCompressMinBytes = 1024
	// DefaultRedisBreakerFailures is how many consecutive failed operations
	// open a circuit breaker.
	DefaultRedisBreakerFailures = 5
	// DefaultRedisBreakerCooldown is how long an open breaker stops all
	// traffic to its Redis before one operation tries it again.
	DefaultRedisBreakerCooldown = 5 * time.Second
	// DefaultRedisQueueSize is how many writes may wait for the writer
	// before new ones are dropped.
	DefaultRedisQueueSize = 4096
)

// redisErrLogEvery is the least time between two log lines about failed
// Redis operations or dropped writes: Redis trouble affects every request,
// and one line per request would drown the log.
const redisErrLogEvery = 10 * time.Second

// RedisOptions configure NewRedis. Zero values select the defaults.
type RedisOptions struct {
	// URL is the Redis that is written to (and read from when there are no
	// replicas): redis://[user:password@]host:port/db, rediss:// for TLS or
	// unix:///path. Required.
	URL string
	// ReplicaURLs are read replicas of URL. When given, reads go to them in
	// turn (to the primary only while every replica's breaker is open);
	// writes and the shared LIB always go to URL.
	ReplicaURLs []string
	// Prefix namespaces every key (DefaultRedisPrefix when empty): entries
	// live under Prefix+"c:"+key, the shared LIB under Prefix+"lib".
	Prefix string
	// Timeout bounds each Redis operation, connecting included
	// (DefaultRedisTimeout when <= 0). Timeouts given in the URL are
	// overridden.
	Timeout time.Duration
	// CompressMinBytes: values of at least this many bytes are stored
	// zstd-compressed (when that makes them smaller). 0 selects
	// DefaultRedisCompressMinBytes; a negative value never compresses.
	CompressMinBytes int
	// BreakerFailures is how many consecutive failures open a breaker
	// (DefaultRedisBreakerFailures when <= 0).
	BreakerFailures int
	// BreakerCooldown is how long an open breaker waits before letting one
	// operation try again (DefaultRedisBreakerCooldown when <= 0).
	BreakerCooldown time.Duration
	// QueueSize bounds the writes waiting to be sent (DefaultRedisQueueSize
	// when <= 0); a write that finds the queue full is dropped and counted.
	QueueSize int
	// Logger receives breaker changes and (rate-limited) errors; nil
	// discards them.
	Logger *slog.Logger
}

// Redis is the optional shared cache tier: several hivegate replicas read
// and write one Redis so that an answer fetched by one is a hit on all.
//
// Reads (Get) are synchronous and bounded by the timeout. Writes (Set) are
// queued and sent by one background writer in pipelined batches, so they
// never add latency to a client's response; when the queue is full they are
// dropped and counted. Values are stored with a one-byte header saying
// whether the rest is raw or zstd-compressed.
//
// Every Redis endpoint (the primary, each replica) has a circuit breaker:
// after BreakerFailures consecutive failures it stops all traffic to that
// endpoint for BreakerCooldown, then lets one operation through to probe it.
// While a breaker is open, reads miss and writes are skipped, so requests
// go on with the in-process cache and the backends. Redis is never a reason
// for a request to fail.
//
// A Redis is safe for concurrent use. Close stops the writer.
type Redis struct {
	primary  *endpoint
	replicas []*endpoint
	next     atomic.Uint32 // round-robin position over replicas

	prefix      string
	timeout     time.Duration
	compressMin int
	enc         *zstd.Encoder
	dec         *zstd.Decoder

	queue     chan writeOp
	done      chan struct{}
	stopped   chan struct{}
	closeOnce sync.Once

	lib *SharedLIB
	log *slog.Logger

	errLog  logLimiter
	dropLog logLimiter
	st      redisCounters
}

// redisCounters are the Redis tier's counters.
type redisCounters struct {
	hits, misses, errors, skipped   atomic.Uint64
	writes, compressed, dropped     atomic.Uint64
	libPublished, corruptValueReads atomic.Uint64
}

// RedisStats is a snapshot of the shared tier's counters, for metrics.
type RedisStats struct {
	// Hits counts reads that found a value.
	Hits uint64
	// Misses counts reads that found none (including values that could not
	// be decoded).
	Misses uint64
	// Errors counts operations that failed: timeouts, connection errors,
	// values that could not be decoded.
	Errors uint64
	// Skipped counts reads and writes not attempted because a breaker was
	// open.
	Skipped uint64
	// BreakerOpens counts how many times a breaker opened.
	BreakerOpens uint64
	// OpenBreakers is the number of breakers open now (primary and
	// replicas); 0 when every endpoint is in use.
	OpenBreakers int
	// Writes counts values written.
	Writes uint64
	// Compressed counts values written zstd-compressed.
	Compressed uint64
	// Dropped counts writes dropped because the queue was full.
	Dropped uint64
	// Queued is the number of writes waiting for the writer.
	Queued int
	// LIB is the highest last irreversible block read from or written to
	// Redis, 0 when none.
	LIB uint64
	// LIBPublished counts successful updates of the shared LIB.
	LIBPublished uint64
}

// endpoint is one Redis server with its breaker.
type endpoint struct {
	addr   string // host:port or socket path, for logs (never the password)
	client *redis.Client
	br     breaker
}

// NewRedis returns a Redis for opts. It does not connect: a Redis that is
// down when hivegate starts is a Redis whose breaker opens, not a reason
// not to start. It fails only on options it cannot use (a malformed URL).
func NewRedis(opts RedisOptions) (*Redis, error) {
	if opts.URL == "" {
		return nil, errors.New("redis: no URL")
	}
	o := opts.withDefaults()
	r := &Redis{
		prefix:      o.Prefix,
		timeout:     o.Timeout,
		compressMin: o.CompressMinBytes,
		queue:       make(chan writeOp, o.QueueSize),
		done:        make(chan struct{}),
		stopped:     make(chan struct{}),
		log:         o.Logger,
		errLog:      logLimiter{every: redisErrLogEvery},
		dropLog:     logLimiter{every: redisErrLogEvery},
	}
	var err error
	if r.primary, err = r.newEndpoint(o, o.URL); err != nil {
		return nil, err
	}
	for _, u := range o.ReplicaURLs {
		ep, err := r.newEndpoint(o, u)
		if err != nil {
			r.closeClients()
			return nil, fmt.Errorf("replica: %w", err)
		}
		r.replicas = append(r.replicas, ep)
	}
	if r.enc, err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1)); err != nil {
		r.closeClients()
		return nil, fmt.Errorf("redis: zstd encoder: %w", err)
	}
	if r.dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0),
		zstd.WithDecoderMaxMemory(maxDecodedBytes)); err != nil {
		r.closeClients()
		return nil, fmt.Errorf("redis: zstd decoder: %w", err)
	}
	r.lib = newSharedLIB(r)
	go r.writer()
	return r, nil
}

// withDefaults fills in the zero options.
func (o RedisOptions) withDefaults() RedisOptions {
	if o.Prefix == "" {
		o.Prefix = DefaultRedisPrefix
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultRedisTimeout
	}
	if o.CompressMinBytes == 0 {
		o.CompressMinBytes = DefaultRedisCompressMinBytes
	}
	if o.BreakerFailures <= 0 {
		o.BreakerFailures = DefaultRedisBreakerFailures
	}
	if o.BreakerCooldown <= 0 {
		o.BreakerCooldown = DefaultRedisBreakerCooldown
	}
	if o.QueueSize <= 0 {
		o.QueueSize = DefaultRedisQueueSize
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// newEndpoint parses one URL into a client that never retries and never
// waits longer than the timeout, for a connection included.
func (r *Redis) newEndpoint(o RedisOptions, url string) (*endpoint, error) {
	co, err := redis.ParseURL(url)
	if err != nil {
		// go-redis quotes the URL in some errors; it may hold a password.
		return nil, errors.New("redis: malformed URL: want redis://[user:password@]host:port/db, rediss://… or unix:///path")
	}
	co.DialTimeout = o.Timeout
	co.ReadTimeout = o.Timeout
	co.WriteTimeout = o.Timeout
	co.PoolTimeout = o.Timeout
	co.ContextTimeoutEnabled = true
	co.MaxRetries = -1 // a retry would double a slow Redis's cost to the client
	co.DisableIdentity = true
	ep := &endpoint{addr: co.Addr, client: redis.NewClient(co)}
	ep.br = breaker{threshold: int64(o.BreakerFailures), cooldown: o.BreakerCooldown, now: time.Now}
	ep.br.onOpen = func(failures int64, err error) {
		r.log.Warn("redis unreachable: shared cache paused; requests go on with the in-process cache",
			"redis", ep.addr, "consecutive_failures", failures, "retry_in", o.BreakerCooldown, "err", err)
	}
	ep.br.onClose = func() {
		r.log.Info("redis reachable again: shared cache resumed", "redis", ep.addr)
	}
	return ep, nil
}

// entryKey is the Redis key of a cache key.
func (r *Redis) entryKey(key string) string { return r.prefix + "c:" + key }

// Prefix returns the key namespace in use.
func (r *Redis) Prefix() string { return r.prefix }

// Timeout returns the bound on each Redis operation.
func (r *Redis) Timeout() time.Duration { return r.timeout }

// LIB returns the shared last irreversible block.
func (r *Redis) LIB() *SharedLIB { return r.lib }

// Get reads the value stored under key and the time it has left: ttl is
// NoExpiry for a value without expiry. ok is false on a miss, and also when
// Redis is slow, down or behind an open breaker: Get never takes longer than
// the timeout and never fails. A ctx that ends first ends Get too.
func (r *Redis) Get(ctx context.Context, key string) (value []byte, ttl time.Duration, ok bool) {
	ep, tok := r.reader()
	if ep == nil {
		r.st.skipped.Add(1)
		return nil, 0, false
	}
	opCtx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	k := r.entryKey(key)
	pipe := ep.client.Pipeline()
	get := pipe.Get(opCtx, k)
	pttl := pipe.PTTL(opCtx, k)
	if _, err := pipe.Exec(opCtx); err != nil && !errors.Is(err, redis.Nil) {
		r.failed(ctx, ep, tok, "get", err)
		return nil, 0, false
	}
	ep.br.succeeded(tok)
	raw, err := get.Bytes()
	if err != nil {
		r.st.misses.Add(1)
		return nil, 0, false
	}
	switch left := pttl.Val(); {
	case left == -1: // the key has no expiry
		ttl = NoExpiry
	case left >= time.Millisecond:
		ttl = left
	default: // gone between GET and PTTL
		r.st.misses.Add(1)
		return nil, 0, false
	}
	value, err = r.decode(raw)
	if err != nil {
		r.st.misses.Add(1)
		r.st.corruptValueReads.Add(1)
		r.logError("decode", fmt.Errorf("value under %q: %w", k, err))
		return nil, 0, false
	}
	r.st.hits.Add(1)
	return value, ttl, true
}

// reader picks the endpoint a read goes to: the next replica whose breaker
// lets it through, else the primary; nil when every breaker is open.
func (r *Redis) reader() (*endpoint, token) {
	if n := uint32(len(r.replicas)); n > 0 {
		start := r.next.Add(1)
		for i := range n {
			ep := r.replicas[(start+i)%n]
			if tok := ep.br.allow(); tok != denied {
				return ep, tok
			}
		}
	}
	if tok := r.primary.br.allow(); tok != denied {
		return r.primary, tok
	}
	return nil, denied
}

// failed records a failed operation. A failure caused by the caller's own
// ctx ending (the client went away) says nothing about Redis and is not
// held against it.
func (r *Redis) failed(ctx context.Context, ep *endpoint, tok token, op string, err error) {
	if ctx.Err() != nil {
		ep.br.abandoned(tok)
		return
	}
	r.st.errors.Add(1)
	ep.br.failed(tok, err)
	r.logError(op, fmt.Errorf("%s: %w", ep.addr, err))
}

// logError logs a failed operation, at most once per redisErrLogEvery.
func (r *Redis) logError(op string, err error) {
	if ok, suppressed := r.errLog.allow(time.Now()); ok {
		r.log.Warn("redis operation failed; the request goes on without the shared cache",
			"op", op, "err", err, "similar_errors_not_logged", suppressed)
	}
}

// Stats returns a snapshot of the counters.
func (r *Redis) Stats() RedisStats {
	st := RedisStats{
		Hits:         r.st.hits.Load(),
		Misses:       r.st.misses.Load(),
		Errors:       r.st.errors.Load() + r.st.corruptValueReads.Load(),
		Skipped:      r.st.skipped.Load(),
		Writes:       r.st.writes.Load(),
		Compressed:   r.st.compressed.Load(),
		Dropped:      r.st.dropped.Load(),
		Queued:       len(r.queue),
		LIB:          r.lib.Known(),
		LIBPublished: r.st.libPublished.Load(),
	}
	for _, ep := range r.endpoints() {
		st.BreakerOpens += ep.br.opens.Load()
		if ep.br.isOpen() {
			st.OpenBreakers++
		}
	}
	return st
}

// endpoints lists the primary and the replicas.
func (r *Redis) endpoints() []*endpoint {
	return append([]*endpoint{r.primary}, r.replicas...)
}

// Close sends the writes still queued (within one timeout), stops the
// writer and closes the connections. Later Sets are dropped; later Gets
// miss. Close may be called more than once.
func (r *Redis) Close() error {
	r.closeOnce.Do(func() {
		close(r.done)
		<-r.stopped
		_ = r.enc.Close() // compressors hold no resource that can fail to close
		r.dec.Close()
		r.closeClients()
	})
	return nil
}

// closeClients closes every endpoint's connections.
func (r *Redis) closeClients() {
	for _, ep := range r.endpoints() {
		if ep != nil {
			_ = ep.client.Close()
		}
	}
}

// logLimiter lets one log line through per period and counts the others.
type logLimiter struct {
	every      time.Duration
	mu         sync.Mutex
	last       time.Time
	suppressed int
}

// allow reports whether a line may be logged at now, and how many were
// suppressed since the last one.
func (l *logLimiter) allow(now time.Time) (ok bool, suppressed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.last.IsZero() && now.Sub(l.last) < l.every {
		l.suppressed++
		return false, 0
	}
	l.last, suppressed, l.suppressed = now, l.suppressed, 0
	return true, suppressed
}
