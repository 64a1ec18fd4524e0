package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	database_apiv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
	"github.com/hivegate/hivegate/gen/hive/database_api/v1/database_apiv1connect"
	"github.com/hivegate/hivegate/internal/syncbuf"
)

// startDemo runs `hivegate demo` on a free loopback port and returns the
// commands it printed; the demo stops when the test ends.
func startDemo(t *testing.T) []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out syncbuf.Buffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"demo", "--listen", "127.0.0.1:0"}, &out, io.Discard) }()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("demo exited with %d", code)
			}
		case <-time.After(30 * time.Second):
			t.Error("demo did not stop within 30s of cancellation")
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "Stop with Ctrl-C") {
		if time.Now().After(deadline) {
			t.Fatalf("demo printed no commands within 30s; output so far:\n%s", out.String())
		}
		select {
		case code := <-done:
			t.Fatalf("demo exited early with %d:\n%s", code, out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	var cmds []string
	for _, line := range strings.Split(out.String(), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "curl ") || strings.HasPrefix(line, "grpcurl ") {
			cmds = append(cmds, line)
		}
	}
	if want := len(demoCommands("x", "y")); len(cmds) != want {
		t.Fatalf("demo printed %d commands, want %d:\n%s", len(cmds), want, out.String())
	}
	for _, part := range []string{"simulated Hive node:   http://127.0.0.1:", "metrics and /admin/*:  http://127.0.0.1:"} {
		if !strings.Contains(out.String(), part) {
			t.Errorf("the banner does not say %q:\n%s", part, out.String())
		}
	}
	return cmds
}

// TestDemoCommandsWork runs `hivegate demo` as a new user would and runs
// every command it prints, checking each returns data.
func TestDemoCommandsWork(t *testing.T) {
	cmds := startDemo(t)
	for _, cmd := range cmds {
		t.Run(strings.Fields(cmd)[0]+" "+cmd[strings.LastIndex(cmd, " ")+1:], func(t *testing.T) {
			if strings.HasPrefix(cmd, "grpcurl ") {
				if _, err := exec.LookPath("grpcurl"); err != nil {
					if os.Getenv("CI") != "" {
						t.Fatal("grpcurl is not installed; .ci/run installs it")
					}
					// Without grpcurl, make the same gRPC call with a Go client.
					checkGRPCListAccounts(t, strings.Fields(cmd)[4])
					return
				}
			}
			out, err := exec.Command("sh", "-c", cmd).Output()
			var exit *exec.ExitError
			if strings.Contains(cmd, "/stream/") && errors.As(err, &exit) && exit.ExitCode() == 28 {
				err = nil // curl -m ended the live stream, as the banner says
			}
			if err != nil {
				t.Fatalf("%s: %v\n%s", cmd, err, out)
			}
			checkDemoOutput(t, cmd, out)
		})
	}
}

func checkDemoOutput(t *testing.T, cmd string, out []byte) {
	t.Helper()
	if strings.HasSuffix(cmd, "/metrics") {
		if !strings.Contains(string(out), "hivegate_requests_total") {
			t.Errorf("%s: no hivegate metrics in\n%.500s", cmd, out)
		}
		return
	}
	if strings.Contains(cmd, "/stream/blocks") {
		checkDemoSSE(t, cmd, out)
		return
	}
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%s: output is not JSON: %v\n%s", cmd, err, out)
	}
	s := string(out)
	switch {
	case strings.Contains(cmd, "ListAccounts"):
		if !strings.Contains(s, `"accounts"`) || !strings.Contains(s, `"alice"`) {
			t.Errorf("%s: no accounts in\n%s", cmd, s)
		}
	case strings.Contains(cmd, "oauth-authorization-server"):
		if !strings.Contains(s, `"authorization_endpoint"`) || !strings.Contains(s, `"service_account":"trent"`) {
			t.Errorf("%s: not the auth metadata:\n%s", cmd, s)
		}
	case strings.Contains(cmd, "jsonrpc"):
		if strings.Contains(s, `"error"`) || !strings.Contains(s, `"result"`) {
			t.Errorf("%s: want results, got\n%s", cmd, s)
		}
	default:
		if !strings.Contains(s, `"status":"OK"`) {
			t.Errorf("%s: health not OK:\n%s", cmd, s)
		}
	}
}

func checkGRPCListAccounts(t *testing.T, addr string) {
	t.Helper()
	// gRPC needs HTTP/2: over plain http that is h2c with prior knowledge.
	var protocols http.Protocols
	protocols.SetUnencryptedHTTP2(true)
	hc := &http.Client{Transport: &http.Transport{Protocols: &protocols}}
	client := database_apiv1connect.NewDatabaseApiServiceClient(hc, "http://"+addr, connect.WithGRPC())
	resp, err := client.ListAccounts(context.Background(), connect.NewRequest(&database_apiv1.ListAccountsRequest{Limit: proto.Uint32(3), Order: database_apiv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME}))
	if err != nil {
		t.Fatalf("gRPC ListAccounts: %v", err)
	}
	if n := len(resp.Msg.GetAccounts()); n != 3 {
		t.Fatalf("gRPC ListAccounts returned %d accounts, want 3", n)
	}
}

// TestDemoServesUI checks the browser page the demo points to is served:
// the page and every asset it names.
func TestDemoServesUI(t *testing.T) {
	cmds := startDemo(t)
	addr := strings.TrimPrefix(strings.Fields(cmds[0])[2], "http://")
	addr = strings.TrimSuffix(addr, "/")
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
		return string(b)
	}
	page := get("/ui/")
	if !strings.Contains(page, "<html") {
		t.Fatalf("GET /ui/ is not the page:\n%s", page)
	}
	assets := regexp.MustCompile(`(?:src|href)="\.?/?(assets/[^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(assets) == 0 {
		t.Fatalf("the page names no assets:\n%s", page)
	}
	for _, a := range assets {
		if body := get("/ui/" + a[1]); len(body) == 0 {
			t.Errorf("asset %s is empty", a[1])
		}
	}
}

// checkDemoSSE checks the live block stream: at least one block event
// whose data is a block message with a cursor, in 7 s of a node that makes
// a block every 3 s.
func checkDemoSSE(t *testing.T, cmd string, out []byte) {
	t.Helper()
	blocks := 0
	for _, line := range strings.Split(string(out), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var m struct {
			Type   string `json:"type"`
			Cursor string `json:"cursor"`
			Block  *struct {
				BlockNum uint64 `json:"block_num"`
			} `json:"block"`
		}
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatalf("%s: event data is not JSON: %v\n%s", cmd, err, data)
		}
		if m.Type == "block" && m.Cursor != "" && m.Block != nil && m.Block.BlockNum > 0 {
			blocks++
		}
	}
	if blocks == 0 {
		t.Errorf("%s: no live block in\n%s", cmd, out)
	}
}
