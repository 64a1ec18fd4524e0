package auth

import (
	"encoding/json"
	"errors"
	"net/http"

	"connectrpc.com/connect"
)

// oauthError is the body of every error the service answers over HTTP:
// {"error": code, "error_description": text}, as OAuth 2 (RFC 6749 5.2)
// and HiveSigner write it.
type oauthError struct {
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

// apiError is a refusal with its HTTP status, OAuth code and, for the
// typed service, its Connect code (0: the one its status implies).
type apiError struct {
	status int
	code   string
	desc   string
	rpc    connect.Code
}

func (e *apiError) Error() string { return e.code + ": " + e.desc }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, oauthError{Error: code, Description: desc})
}

func writeAPIError(w http.ResponseWriter, e *apiError) {
	if e.status == http.StatusUnauthorized && e.code == "invalid_token" {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="`+e.desc+`"`)
	}
	writeError(w, e.status, e.code, e.desc)
}

// tokenError is the apiError of a token verify refused.
func tokenError(err error) *apiError {
	if errors.Is(err, ErrStoreDown) {
		return &apiError{http.StatusServiceUnavailable, "temporarily_unavailable", err.Error(), connect.CodeUnavailable}
	}
	return &apiError{http.StatusUnauthorized, "invalid_token", err.Error(), connect.CodeUnauthenticated}
}
