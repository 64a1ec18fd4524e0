package auth

import (
	"context"
	"net/http"
)

// TokenApp returns the app (client id) a request's access token was issued
// to, when its Authorization header carries a valid one: signed by this
// service, not expired, of a registered app, not revoked. Quotas count
// such a call against the app's auth.apps[].quota class (package quota).
func (s *Service) TokenApp(ctx context.Context, h http.Header) (clientID string, ok bool) {
	raw := Bearer(&http.Request{Header: h})
	if raw == "" {
		return "", false
	}
	t, err := s.Verify(ctx, raw)
	if err != nil {
		return "", false
	}
	return t.ClientID, true
}
