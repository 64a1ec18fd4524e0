package gateway

import (
	"net/http"

	connectcors "connectrpc.com/cors"
	"github.com/rs/cors"

	"github.com/hivegate/hivegate/jsonrpc"
)

// withCORS lets browsers on the allowed origins call every endpoint
// (JSON-RPC, Connect, gRPC-Web). origins defaults to any ("*"). The
// preflight allows connect's and gRPC-Web's request headers, and responses
// expose their status headers plus x-hivegate-cache and x-hivegate-route.
func withCORS(h http.Handler, origins []string) http.Handler {
	if len(origins) == 0 {
		origins = []string{"*"}
	}
	c := cors.New(cors.Options{
		AllowedOrigins: origins,
		AllowedMethods: connectcors.AllowedMethods(),
		AllowedHeaders: append(connectcors.AllowedHeaders(), "X-Request-Id", "Connect-Accept-Encoding", "Connect-Content-Encoding", "Grpc-Accept-Encoding", "Authorization"),
		ExposedHeaders: append(connectcors.ExposedHeaders(), jsonrpc.HeaderCache, jsonrpc.HeaderRoute, "X-Request-Id", "WWW-Authenticate"),
		MaxAge:         7200,
	})
	return c.Handler(h)
}
