package fakenode

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"
)

// BatchPath is the path on which the minimal server returns its batch body
// instead of its single-answer body.
const BatchPath = "/batch"

// Minimal is the ceiling: a plain net/http handler that reads the request
// body and returns one fixed JSON-RPC answer (or, on BatchPath, a fixed
// array of such answers), without looking at what was asked.
type Minimal struct {
	single []byte
	batch  []byte
}

// NewMinimal returns a Minimal handler whose single answer carries result
// with id 1 and whose batch answer carries batchSize copies of it.
func NewMinimal(result json.RawMessage, batchSize int) *Minimal {
	m := &Minimal{single: Envelope(nil, json.RawMessage("1"), result)}
	b := []byte{'['}
	for i := range batchSize {
		if i > 0 {
			b = append(b, ',')
		}
		b = Envelope(b, json.RawMessage(strconv.Itoa(i+1)), result)
	}
	b = append(b, ']')
	m.batch = b
	return m
}

// SingleBody is the fixed single answer.
func (m *Minimal) SingleBody() []byte { return m.single }

// ServeHTTP implements http.Handler.
func (m *Minimal) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	body := m.single
	if r.URL.Path == BatchPath {
		body = m.batch
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// WithGatewayHeaders wraps h so that every answer carries the headers
// hivegate adds to a cached single call (x-request-id, x-hivegate-cache,
// x-hivegate-route, and Vary: Origin from CORS): with the gateway's server
// settings it is the ceiling of a server that answers like hivegate
// without doing hivegate's work (benchserver --gateway-server).
func WithGatewayHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hdr := w.Header()
		hdr.Set("X-Request-Id", "00112233445566778899aabbccddeeff")
		hdr.Set("Vary", "Origin")
		hdr.Set("X-Hivegate-Cache", "hit")
		hdr.Set("X-Hivegate-Route", "appbase.condenser_api.get_dynamic_global_properties")
		h.ServeHTTP(w, r)
	})
}

// Backend is a fast fake hived: every JSON-RPC call (single or batch) gets
// the fixed result Answers.For its method, with the caller's id.
type Backend struct {
	answers *Answers
	bufs    sync.Pool // *bytes.Buffer for request bodies
	outs    sync.Pool // *[]byte for answers
}

// NewBackend returns a Backend serving a.
func NewBackend(a *Answers) *Backend {
	b := &Backend{answers: a}
	b.bufs.New = func() any { return new(bytes.Buffer) }
	b.outs.New = func() any { s := make([]byte, 0, 4096); return &s }
	return b
}

// call is the part of a JSON-RPC request the fake node reads.
type call struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// upstreamMethod resolves hived's "call" form to "api.method".
func (c *call) upstreamMethod() string {
	if c.Method != "call" {
		return c.Method
	}
	var p []json.RawMessage
	if json.Unmarshal(c.Params, &p) != nil || len(p) < 2 {
		return c.Method
	}
	var api, m string
	if json.Unmarshal(p[0], &api) != nil || json.Unmarshal(p[1], &m) != nil {
		return c.Method
	}
	return api + "." + m
}

// ServeHTTP implements http.Handler.
func (b *Backend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	in := b.bufs.Get().(*bytes.Buffer)
	defer b.bufs.Put(in)
	in.Reset()
	if _, err := in.ReadFrom(r.Body); err != nil {
		http.Error(w, "reading body: "+err.Error(), http.StatusBadRequest)
		return
	}
	body := bytes.TrimLeft(in.Bytes(), " \t\r\n")
	out := b.outs.Get().(*[]byte)
	defer b.outs.Put(out)
	dst := (*out)[:0]
	if len(body) > 0 && body[0] == '[' {
		var calls []call
		if err := json.Unmarshal(body, &calls); err != nil {
			writeParseError(w)
			return
		}
		dst = append(dst, '[')
		for i := range calls {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = Envelope(dst, calls[i].ID, b.answers.For(calls[i].upstreamMethod()))
		}
		dst = append(dst, ']')
	} else {
		var c call
		if err := json.Unmarshal(body, &c); err != nil {
			writeParseError(w)
			return
		}
		dst = Envelope(dst, c.ID, b.answers.For(c.upstreamMethod()))
	}
	*out = dst
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(dst)
}

func writeParseError(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse Error"},"id":null}`)
}
