package metrics

import "github.com/hivegate/hivegate/jsonrpc"

// The outcome label values besides the gateway error kinds.
const (
	// OutcomeOK is a call answered with a result.
	OutcomeOK = "ok"
	// OutcomeBackendError is a call the backend answered with a JSON-RPC
	// error (passed through to the client).
	OutcomeBackendError = "backend_error"
)

// Outcome is the outcome label of a call: OutcomeOK for nil, then
// OutcomeBackendError for a backend's error, or the kind of one of
// hivegate's own errors (jsonrpc.Errors: "upstream_timeout",
// "method_not_found", ...). An unknown kind counts as "internal_error", so
// the label keeps a fixed set of values.
func Outcome(err *jsonrpc.Error) string {
	switch {
	case err == nil:
		return OutcomeOK
	case err.Kind == "":
		return OutcomeBackendError
	}
	return KindLabel(err.Kind)
}

// KindLabel returns k when it is one of hivegate's error kinds and
// "internal_error" otherwise.
func KindLabel(k jsonrpc.Kind) string {
	for _, s := range jsonrpc.Errors {
		if s.Kind == k {
			return string(k)
		}
	}
	return string(jsonrpc.KindInternal)
}
