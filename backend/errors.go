package backend

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"syscall"
	"time"

	"github.com/hivegate/hivegate/jsonrpc"
)

// failure is the outcome of one failed attempt. detail is client-safe and
// completes "backend <name> ..."; cause carries the URL and the real error
// for logs only.
type failure struct {
	kind   jsonrpc.Kind
	detail string
	cause  error
	retry  bool // another attempt may succeed
	down   bool // counts toward the backend's consecutive failures
	// stale marks an answer that may have been left on a kept-alive
	// connection by an earlier exchange (Pool.attempt).
	stale bool
	// refused marks a request the backend refused as a whole, so that it
	// acted on none of it: HTTP 4xx other than 408 and 429, or a
	// JSON-RPC error to a whole batch (CallBatch then makes its calls one
	// by one).
	refused bool
	// reused is set when the attempt went on a kept-alive connection that
	// had carried an earlier exchange.
	reused bool
	// unanswered is set when the attempt got no HTTP answer at all: the
	// connection failed under it.
	unanswered bool
}

// toError returns the gateway error reported to the caller after attempts
// attempts.
func (f *failure) toError(name string, attempts int) *jsonrpc.Error {
	return jsonrpc.NewError(f.kind, withAttempts("backend "+name+" "+f.detail, attempts), f.cause)
}

// withAttempts appends the number of attempts to a detail when it is > 1.
func withAttempts(detail string, attempts int) string {
	if attempts > 1 {
		return detail + " (" + strconv.Itoa(attempts) + " attempts)"
	}
	return detail
}

// timeoutError is the error of a call whose deadline passed. Its cause
// quotes, but does not wrap, the last attempt's error: a gateway error never
// matches errors.Is(err, context.DeadlineExceeded), which callers keep for
// their own context ending.
func timeoutError(n *node, timeout time.Duration, attempts int, cause error) *jsonrpc.Error {
	detail := withAttempts("backend "+n.name+" did not answer within "+timeout.String(), attempts)
	return jsonrpc.NewError(jsonrpc.KindUpstreamTimeout, detail,
		fmt.Errorf("no answer within %s: %v", timeout, cause))
}

// abandoned is the error of a call whose caller went away (its context
// ended). It wraps ctx's error so errors.Is(err, context.Canceled) holds.
func abandoned(n *node, ctxErr error) error {
	return fmt.Errorf("backend %s: call abandoned by the caller: %w", n.name, ctxErr)
}

// describeTransport adds the request line (with the redacted URL) to a
// transport error, for logs.
func describeTransport(n *node, err error, what string) error {
	return fmt.Errorf("%s %s: %w", what, shownURL(n.url), redactedErr(err))
}

// httpStatusCause is the log cause of an unwanted HTTP status.
func httpStatusCause(n *node, status int, what string) error {
	return fmt.Errorf("%s %s: HTTP %d", what, shownURL(n.url), status)
}

// isNetError reports whether err is a failure of the connection itself (a
// reset, a close, a timeout) rather than of what came over it.
func isNetError(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// transportFailure classifies a transport error: while sending the request
// and waiting for headers, or (midBody) while reading the answer's body. All
// of them are retried and count against the backend's health.
func transportFailure(n *node, err error, midBody bool) *failure {
	var detail string
	var dnsErr *net.DNSError
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		detail = "refused the connection"
	case errors.Is(err, syscall.ECONNRESET):
		detail = "reset the connection"
		if midBody {
			detail = "reset the connection in the middle of its answer"
		}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		detail = "closed the connection without answering"
		if midBody {
			detail = "closed the connection in the middle of its answer"
		}
	case errors.As(err, &dnsErr):
		detail = "could not be resolved"
	case errors.As(err, &netErr) && netErr.Timeout():
		detail = "did not accept a connection in time"
	case midBody:
		detail = "broke the connection in the middle of its answer"
	default:
		detail = "could not be reached"
	}
	return &failure{
		kind:   jsonrpc.KindUpstreamUnavailable,
		detail: detail,
		cause:  describeTransport(n, err, "POST"),
		retry:  true,
		down:   true,
	}
}
