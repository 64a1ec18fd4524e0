package cache

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

// fakeClock is a settable clock for breaker tests.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestBreaker(t *testing.T) {
	t.Parallel()
	errDown := errors.New("down")
	// Each step: what happens, then the expected allow() result after it.
	type step struct {
		do   string // "fail", "ok", "advance", "probe-fail", "probe-ok", "probe-abandon"
		want token
	}
	cases := []struct {
		name  string
		steps []step
		opens uint64
	}{
		{"closed after fewer failures than the threshold", []step{
			{"fail", normal}, {"fail", normal},
		}, 0},
		{"a success resets the count", []step{
			{"fail", normal}, {"fail", normal}, {"ok", normal}, {"fail", normal}, {"fail", normal},
		}, 0},
		{"opens at the threshold and denies during the cooldown", []step{
			{"fail", normal}, {"fail", normal}, {"fail", denied}, {"ok", denied},
		}, 1},
		{"one probe after the cooldown; a success closes", []step{
			{"fail", normal}, {"fail", normal}, {"fail", denied}, {"advance", probe}, {"probe-ok", normal},
		}, 1},
		{"a failed probe opens it for another cooldown", []step{
			{"fail", normal}, {"fail", normal}, {"fail", denied}, {"advance", probe}, {"probe-fail", denied}, {"advance", probe},
		}, 1},
		{"an abandoned probe lets the next one try", []step{
			{"fail", normal}, {"fail", normal}, {"fail", denied}, {"advance", probe}, {"probe-abandon", probe},
		}, 1},
		{"opens again after closing", []step{
			{"fail", normal}, {"fail", normal}, {"fail", denied}, {"advance", probe}, {"probe-ok", normal},
			{"fail", normal}, {"fail", normal}, {"fail", denied},
		}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clock := &fakeClock{t: time.Unix(1000, 0)}
			closes := 0
			b := &breaker{threshold: 3, cooldown: time.Second, now: clock.now, onClose: func() { closes++ }}
			for i, s := range tc.steps {
				switch s.do {
				case "fail":
					b.failed(normal, errDown)
				case "ok":
					b.succeeded(normal)
				case "advance":
					clock.t = clock.t.Add(time.Second)
				case "probe-fail":
					b.failed(probe, errDown)
				case "probe-ok":
					b.succeeded(probe)
				case "probe-abandon":
					b.abandoned(probe)
				}
				got := b.allow()
				if got != s.want {
					t.Fatalf("step %d (%s): allow() = %d, want %d", i, s.do, got, s.want)
				}
				if got == probe && s.do != "advance" && s.do != "probe-abandon" {
					t.Fatalf("step %d: unexpected probe", i)
				}
				if got == probe {
					// Only one probe at a time.
					if again := b.allow(); again != denied {
						t.Fatalf("step %d: a second allow() during the probe = %d, want denied", i, again)
					}
				}
			}
			if got := b.opens.Load(); got != tc.opens {
				t.Errorf("opened %d times, want %d", got, tc.opens)
			}
		})
	}
}

func TestCodec(t *testing.T) {
	t.Parallel()
	r, err := NewRedis(RedisOptions{URL: "redis://127.0.0.1:1/0", CompressMinBytes: 64})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	cases := []struct {
		name       string
		value      []byte
		compressed bool
	}{
		{"short", []byte(`{"a":1}`), false},
		{"long and repetitive", bytes.Repeat([]byte(`{"voter":"alice","weight":100},`), 100), true},
		{"long but incompressible stays raw", []byte("\x8f\x13\xa2\x07\xfe\x55\x90\x01" + "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!?"), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			enc, z := r.encode(tc.value)
			if z != tc.compressed || (enc[0] == valueZstd) != tc.compressed {
				t.Errorf("compressed %v (header %d), want %v", z, enc[0], tc.compressed)
			}
			dec, err := r.decode(enc)
			if err != nil || !bytes.Equal(dec, tc.value) {
				t.Errorf("decode = %q, %v", dec, err)
			}
		})
	}
	for _, bad := range [][]byte{nil, {9, '{', '}'}, append([]byte{valueZstd}, "garbage"...)} {
		if v, err := r.decode(bad); err == nil {
			t.Errorf("decode(%q) = %q, want an error", bad, v)
		}
	}
}

func TestLogLimiter(t *testing.T) {
	t.Parallel()
	l := logLimiter{every: 10 * time.Second}
	t0 := time.Unix(0, 0)
	steps := []struct {
		at         time.Duration
		ok         bool
		suppressed int
	}{
		{0, true, 0},
		{time.Second, false, 0},
		{5 * time.Second, false, 0},
		{10 * time.Second, true, 2},
		{11 * time.Second, false, 0},
		{30 * time.Second, true, 1},
	}
	for i, s := range steps {
		ok, n := l.allow(t0.Add(s.at))
		if ok != s.ok || n != s.suppressed {
			t.Errorf("step %d: allow = %v, %d; want %v, %d", i, ok, n, s.ok, s.suppressed)
		}
	}
}
