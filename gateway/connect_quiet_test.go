package gateway_test

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/gateway"
	"github.com/hivegate/hivegate/hivesim"
)

// TestConnectMalformedNoLibraryText sends the typed API bodies that
// connect-go's own readers refuse (broken gzip, a GET message that is not
// base64) and checks that the answer is a client error in hivegate's words:
// no Go library error text ("flate", "unexpected EOF", "illegal base64"),
// and never a 5xx or code unknown for the client's own mistake.
func TestConnectMalformedNoLibraryText(t *testing.T) {
	t.Parallel()
	g := startTypedGateway(t, hivesim.New(hivesim.Options{Seed: 1}), gateway.Options{})
	const proc = "/hive.database_api.v1.DatabaseApiService/GetDynamicGlobalProperties"
	var full bytes.Buffer
	zw := gzip.NewWriter(&full)
	_, _ = zw.Write([]byte(`{}`))
	_ = zw.Close()
	truncated := full.Bytes()[:12]
	envelope := func(flags byte, payload []byte) []byte {
		b := []byte{flags, 0, 0, 0, 0}
		binary.BigEndian.PutUint32(b[1:], uint32(len(payload)))
		return append(b, payload...)
	}
	leaks := []string{"flate", "unexpected EOF", "illegal base64", "gzip:", "corrupt input"}
	cases := []struct {
		name, method, url, contentType string
		header                         map[string]string
		body                           []byte
		h2c                            bool
	}{
		{name: "connect json, body not gzip", method: http.MethodPost, url: proc, contentType: "application/json",
			header: map[string]string{"Content-Encoding": "gzip"}, body: []byte("not gzip at all")},
		{name: "connect json, gzip cut short", method: http.MethodPost, url: proc, contentType: "application/json",
			header: map[string]string{"Content-Encoding": "gzip"}, body: truncated},
		{name: "grpc-web, compressed frame not gzip", method: http.MethodPost, url: proc,
			contentType: "application/grpc-web+proto", header: map[string]string{"Grpc-Encoding": "gzip"},
			body: envelope(1, []byte("\x1f\x8bnot really"))},
		{name: "GET, message not base64", method: http.MethodGet,
			url: proc + "?connect=v1&encoding=json&base64=1&message=%21%21%21%21"},
		{name: "GET, message cut base64", method: http.MethodGet,
			url: proc + "?connect=v1&encoding=proto&base64=1&message=e30x%3D"},
	}
	// A well-formed gzip body still goes through the replaced decompressor.
	req, err := http.NewRequest(http.MethodPost, g.srv.URL+proc, bytes.NewReader(full.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "gzip")
	resp, err := g.h1.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	ok, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(ok), "headBlockNumber") {
		t.Errorf("a gzip request: HTTP %d %s", resp.StatusCode, ok)
	}
	for _, tt := range cases {
		req, err := http.NewRequest(tt.method, g.srv.URL+tt.url, bytes.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		if tt.contentType != "" {
			req.Header.Set("Content-Type", tt.contentType)
		}
		for k, v := range tt.header {
			req.Header.Set(k, v)
		}
		resp, err := g.h1.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answer := string(body) + " " + resp.Header.Get("Grpc-Message") + " " + resp.Trailer.Get("Grpc-Message")
		if resp.StatusCode >= 500 {
			t.Errorf("%s: HTTP %d for the client's own mistake: %s", tt.name, resp.StatusCode, answer)
		}
		for _, leak := range leaks {
			if strings.Contains(answer, leak) {
				t.Errorf("%s: the answer shows a library's error text %q: %s", tt.name, leak, answer)
			}
		}
		status := resp.Header.Get("Grpc-Status") + resp.Trailer.Get("Grpc-Status")
		if !strings.Contains(string(body), `"code":"invalid_argument"`) && status != "3" {
			t.Errorf("%s: want invalid_argument, got HTTP %d %s (grpc-status %q)", tt.name, resp.StatusCode, answer, status)
		}
	}
}
