package backend

import (
	"errors"
	"net/url"
	"strings"

	"github.com/hivegate/hivegate/config"
)

// shownURL is a node URL as hivegate shows it, in errors, logs and
// NodeState: credentials in the user information, the query or the path
// redacted (config.RedactURL). Calls use the URL itself.
func shownURL(u *url.URL) string { return config.RedactURL(u.String()) }

// redactedErr returns err with the URL of the *url.Error in its chain, if
// any, redacted in its message: net/http's client (which the WebSocket
// dial uses) quotes the request URL with only its password masked, query
// and all. The chain stays as it was for errors.Is and errors.As.
func redactedErr(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	msg := err.Error()
	shown := strings.ReplaceAll(msg, ue.URL, config.RedactURL(ue.URL))
	if shown == msg {
		return err
	}
	return &redactedError{msg: shown, err: err}
}

// redactedError is an error whose message has had a URL redacted.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
