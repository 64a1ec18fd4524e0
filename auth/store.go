package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hivegate/hivegate/config"
)

// The kinds of short-lived records the service keeps.
const (
	kindRequest   = "request"   // a validated authorization request, by its id
	kindChallenge = "challenge" // a login challenge, by its id
	kindSession   = "session"   // a verified login awaiting the user's decision
	kindCode      = "code"      // an authorization code, by its sha256
	kindUsedCode  = "used"      // a redeemed code's grant, by the code's sha256
	kindRevoked   = "revoked"   // a revoked grant, by its id
	kindUsedRT    = "usedrt"    // a used refresh token's grant, by the token's jti
)

// errNotFound is a record that does not exist or has expired.
var errNotFound = errors.New("not found")

// store keeps the service's short-lived records: authorization requests,
// challenges, sessions, codes, and revoked grants. Records expire by
// themselves. take reads and deletes at once, so a code or a challenge is
// used at most once even when two requests race for it; add writes only a
// record that is not there, so of two requests racing to use a refresh
// token one wins.
type store interface {
	put(ctx context.Context, kind, id string, v []byte, ttl time.Duration) error
	add(ctx context.Context, kind, id string, v []byte, ttl time.Duration) (added bool, err error)
	get(ctx context.Context, kind, id string) ([]byte, error)
	take(ctx context.Context, kind, id string) ([]byte, error)
	close() error
}

// openStore returns the Redis store when the shared tier is configured
// (cache.redis_url), so that every replica sees every code, challenge and
// revocation at once; otherwise the in-process store.
func openStore(c config.CacheSettings, now func() time.Time) (store, error) {
	if !c.Enabled() {
		return &memStore{now: now, m: map[string]memEntry{}}, nil
	}
	opts, err := redis.ParseURL(c.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("auth: cache.redis_url: %w", err)
	}
	timeout := max(c.RedisTimeout, 250*time.Millisecond) // a revocation check may not time out as eagerly as a cache read
	opts.ReadTimeout, opts.WriteTimeout, opts.DialTimeout = timeout, timeout, 4*timeout
	return &redisStore{c: redis.NewClient(opts), prefix: c.RedisPrefix + "auth:"}, nil
}

// memStore is the in-process store of a single replica.
type memStore struct {
	now  func() time.Time
	mu   sync.Mutex
	m    map[string]memEntry
	puts int
}

type memEntry struct {
	v   []byte
	exp time.Time
}

func (s *memStore) put(_ context.Context, kind, id string, v []byte, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.putLocked(kind, id, v, ttl)
	return nil
}

func (s *memStore) putLocked(kind, id string, v []byte, ttl time.Duration) {
	now := s.now()
	s.m[kind+":"+id] = memEntry{v: v, exp: now.Add(ttl)}
	if s.puts++; s.puts%256 == 0 {
		for k, e := range s.m {
			if !now.Before(e.exp) {
				delete(s.m, k)
			}
		}
	}
}

func (s *memStore) add(_ context.Context, kind, id string, v []byte, ttl time.Duration) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.m[kind+":"+id]; ok && s.now().Before(e.exp) {
		return false, nil
	}
	s.putLocked(kind, id, v, ttl)
	return true, nil
}

func (s *memStore) get(_ context.Context, kind, id string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[kind+":"+id]
	if !ok || !s.now().Before(e.exp) {
		return nil, errNotFound
	}
	return e.v, nil
}

func (s *memStore) take(_ context.Context, kind, id string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := kind + ":" + id
	e, ok := s.m[k]
	delete(s.m, k)
	if !ok || !s.now().Before(e.exp) {
		return nil, errNotFound
	}
	return e.v, nil
}

func (s *memStore) close() error { return nil }

// redisStore keeps the records in Redis under "<redis_prefix>auth:".
type redisStore struct {
	c      *redis.Client
	prefix string
}

func (s *redisStore) key(kind, id string) string {
	var b strings.Builder
	b.WriteString(s.prefix)
	b.WriteString(kind)
	b.WriteByte(':')
	b.WriteString(id)
	return b.String()
}

func (s *redisStore) put(ctx context.Context, kind, id string, v []byte, ttl time.Duration) error {
	return s.c.Set(ctx, s.key(kind, id), v, ttl).Err()
}

// add is SET NX.
func (s *redisStore) add(ctx context.Context, kind, id string, v []byte, ttl time.Duration) (bool, error) {
	return s.c.SetNX(ctx, s.key(kind, id), v, ttl).Result()
}

func (s *redisStore) get(ctx context.Context, kind, id string) ([]byte, error) {
	v, err := s.c.Get(ctx, s.key(kind, id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, errNotFound
	}
	return v, err
}

// take is GETDEL (Redis 6.2): one reader gets the record.
func (s *redisStore) take(ctx context.Context, kind, id string) ([]byte, error) {
	v, err := s.c.GetDel(ctx, s.key(kind, id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, errNotFound
	}
	return v, err
}

func (s *redisStore) close() error { return s.c.Close() }
