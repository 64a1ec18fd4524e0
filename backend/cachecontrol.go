package backend

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxCacheAge bounds the lifetime an answer's Cache-Control may ask for.
const maxCacheAge = 365 * 24 * time.Hour

// cacheMaxAge reads how long a shared cache may keep an answer from its
// Cache-Control header (RFC 9111 §5.2.2): s-maxage, else max-age; 0 when
// neither is given or the answer must not be stored (no-store, no-cache,
// private). It serves Drone's HONOR_UPSTREAM_CACHE_CONTROL TTL.
func cacheMaxAge(h http.Header) time.Duration {
	values := h.Values("Cache-Control")
	if len(values) == 0 {
		return 0
	}
	maxAge, sMaxAge := -1, -1
	for _, v := range values {
		for d := range strings.SplitSeq(v, ",") {
			name, arg, _ := strings.Cut(strings.TrimSpace(d), "=")
			switch strings.ToLower(name) {
			case "no-store", "no-cache", "private":
				return 0
			case "max-age":
				maxAge = deltaSeconds(arg)
			case "s-maxage":
				sMaxAge = deltaSeconds(arg)
			}
		}
	}
	secs := maxAge
	if sMaxAge >= 0 {
		secs = sMaxAge
	}
	if secs <= 0 {
		return 0
	}
	return min(time.Duration(secs)*time.Second, maxCacheAge)
}

// deltaSeconds reads a delta-seconds value (quoted or not); -1 when it is
// not one.
func deltaSeconds(s string) int {
	n, err := strconv.Atoi(strings.Trim(s, `"`))
	if err != nil || n < 0 {
		return -1
	}
	return n
}
