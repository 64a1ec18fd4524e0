package backend

import (
	"net/url"

	"github.com/hivegate/hivegate/config"
)

// shownURL is a node URL as hivegate shows it, in errors, logs and
// NodeState: credentials in the user information, the query or the path
// redacted (config.RedactURL). Calls use the URL itself.
func shownURL(u *url.URL) string { return config.RedactURL(u.String()) }
