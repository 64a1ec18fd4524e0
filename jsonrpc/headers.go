package jsonrpc

import (
	"math"
	"strconv"
	"time"
)

// Response headers that tell a client what happened to a single request.
const (
	HeaderCache = "X-Hivegate-Cache"
	HeaderRoute = "X-Hivegate-Route"
	// HeaderRetryAfter says how long to wait before asking again (a call
	// over its quota): RetryAfter's whole seconds.
	HeaderRetryAfter = "Retry-After"
)

// RetryAfter renders a wait as Retry-After does: whole seconds, rounded up,
// at least 1.
func RetryAfter(d time.Duration) string {
	return strconv.Itoa(max(1, int(math.Ceil(d.Seconds()))))
}
