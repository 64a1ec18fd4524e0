package jsonrpc

// Response headers that tell a client what happened to a single request.
const (
	HeaderCache = "X-Hivegate-Cache"
	HeaderRoute = "X-Hivegate-Route"
)
