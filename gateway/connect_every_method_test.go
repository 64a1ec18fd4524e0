package gateway_test

// Every typed RPC against the simulated node: a sample request per method
// (transcode/testdata/sim_requests.json) is served over the four protocols,
// and the node's JSON result fits the typed response with no key left over.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/hivegate/hivegate/gateway"
	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/server/transcode"
)

// simSample is one method's sample request and, when the simulated node
// answers it with an error, a part of that error's message.
type simSample struct {
	Request json.RawMessage `json:"request"`
	Error   string          `json:"error"`
}

func readSimSamples(t *testing.T) map[string]simSample {
	t.Helper()
	b, err := os.ReadFile("../server/transcode/testdata/sim_requests.json")
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]simSample
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEveryTypedMethodAgainstSim serves a sample of every typed RPC.
func TestEveryTypedMethodAgainstSim(t *testing.T) {
	t.Parallel()
	node := hivesim.New(hivesim.Options{Seed: 1})
	g := startTypedGateway(t, node, gateway.Options{})
	samples := readSimSamples(t)
	reg, err := transcode.NewRegistry(protoregistry.GlobalFiles, protoregistry.GlobalTypes)
	if err != nil {
		t.Fatal(err)
	}
	methods := reg.Methods()
	if len(methods) < 200 {
		t.Fatalf("only %d typed methods", len(methods))
	}
	for _, m := range methods {
		sample, ok := samples[m.JSONRPC]
		if !ok {
			t.Errorf("%s: no sample request in transcode/testdata/sim_requests.json", m.JSONRPC)
			continue
		}
		t.Run(m.JSONRPC, func(t *testing.T) {
			t.Parallel()
			req := m.Request.New().Interface()
			if err := protojson.Unmarshal(sample.Request, req); err != nil {
				t.Fatalf("sample request: %v", err)
			}
			for _, p := range protocols() {
				resp := m.Response.New().Interface()
				_, err := g.call(context.Background(), p, m.Desc, proto.Clone(req), resp)
				switch {
				case sample.Error == "" && err != nil:
					t.Fatalf("%s: %v", p.name, err)
				case sample.Error != "" && err == nil:
					t.Fatalf("%s: answered %v, want an error with %q", p.name, resp, sample.Error)
				case sample.Error != "":
					if !strings.Contains(err.Error(), sample.Error) || connect.CodeOf(err) != connect.CodeInvalidArgument {
						t.Errorf("%s: error %v (%v), want invalid_argument with %q", p.name, err, connect.CodeOf(err), sample.Error)
					}
				}
			}
			if sample.Error != "" {
				return
			}
			// The node's JSON for the same params fits the message exactly.
			method, params, err := g.gw.TypedCall(m.Procedure, proto.Clone(req))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
			var env struct {
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(node.Handle(body), &env); err != nil || env.Error != nil {
				t.Fatalf("node: %s %v", env.Error, err)
			}
			msg := m.Response.New().Interface()
			unknown, err := transcode.Unmarshal(env.Result, msg)
			if err != nil || len(unknown) > 0 {
				t.Fatalf("the node's result does not fit %s: %v, unknown keys %v", m.Response.Descriptor().FullName(), err, unknown)
			}
			back, err := transcode.Marshal(msg)
			if err != nil {
				t.Fatal(err)
			}
			if !looselyEqualJSON(t, back, env.Result) {
				t.Errorf("the result does not survive the round trip:\n node %s\n back %s", env.Result, back)
			}
		})
	}
}

// looselyEqualJSON compares two JSON values, taking a numeric string and
// the number it spells as equal (hived writes large 64-bit integers as
// strings; the codec writes numbers up to 2^53 - 1).
func looselyEqualJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	x, err1 := normalizedJSON(a)
	y, err2 := normalizedJSON(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return bytes.Equal(x, y)
}

func normalizedJSON(b []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(normalize(v))
}

func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if isNeverTimeJSON(e) {
				delete(x, k) // hived's never-time is an unset (absent) time
				continue
			}
			x[k] = normalize(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
	case string:
		if i, err := strconv.ParseInt(x, 10, 64); err == nil && len(x) < 40 {
			return json.Number(strconv.FormatInt(i, 10))
		}
		if u, err := strconv.ParseUint(x, 10, 64); err == nil && len(x) < 40 {
			return json.Number(strconv.FormatUint(u, 10))
		}
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return json.Number(strconv.FormatInt(i, 10))
		}
		if f, err := strconv.ParseFloat(string(x), 64); err == nil {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	return v
}
