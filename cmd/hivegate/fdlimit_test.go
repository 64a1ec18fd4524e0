package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hivegate/hivegate/internal/faults"
	"github.com/hivegate/hivegate/internal/syncbuf"
)

// childEnv makes the test binary run hivegate itself (TestMain): its value
// is the command line, one argument per line.
const childEnv = "HIVEGATE_TEST_CHILD_ARGS"

func TestMain(m *testing.M) {
	if args := os.Getenv(childEnv); args != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := run(ctx, strings.Split(args, "\n"), os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// TestOutOfFileDescriptors runs hivegate as a process of its own, lowers its
// open-files limit (prlimit) to a few descriptors above what it uses idle,
// and opens many idle connections to it: accepting fails with EMFILE. The
// process must stay up, log the burst once, and serve again once the
// connections are gone.
func TestOutOfFileDescriptors(t *testing.T) {
	node, err := faults.New(faults.Healthy, faults.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(node.Close)
	cfgFile := filepath.Join(t.TempDir(), "fd.yaml")
	if err := os.WriteFile(cfgFile, fmt.Appendf(nil, "hivegate:\n  access_log: false\n  admin_listen: \"\"\nbackends:\n  hived: %s\nurls:\n  appbase: hived\n", node.URL), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+strings.Join([]string{"serve", "--config", cfgFile, "--listen", "127.0.0.1:0"}, "\n"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var logs syncbuf.Buffer
	addrc := make(chan string, 1)
	go func() {
		listening := regexp.MustCompile(`msg="hivegate listening" listener=main addr=(\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logs.Write(append(sc.Bytes(), '\n'))
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				addrc <- m[1]
			}
		}
	}()
	var addr string
	select {
	case addr = <-addrc:
	case <-time.After(30 * time.Second):
		t.Fatalf("hivegate did not listen:\n%s", logs.String())
	}
	call := func() error {
		c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := c.Post("http://"+addr, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_block","params":[1]}`))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"result"`) {
			return fmt.Errorf("HTTP %d %s", resp.StatusCode, b)
		}
		return nil
	}
	if err := call(); err != nil {
		t.Fatal(err)
	}

	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	limit := uint64(len(fds) + 6)
	if err := unix.Prlimit(cmd.Process.Pid, unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: limit, Max: limit}, nil); err != nil {
		t.Fatalf("prlimit: %v", err)
	}
	var idle []net.Conn
	t.Cleanup(func() {
		for _, c := range idle {
			_ = c.Close()
		}
	})
	for range 64 {
		c, err := net.Dial("tcp", addr) // completed by the kernel's backlog, accepted or not
		if err != nil {
			break
		}
		idle = append(idle, c)
	}
	waitFor(t, "hivegate to run out of file descriptors", func() bool { return strings.Contains(logs.String(), "out of file descriptors") })
	time.Sleep(1500 * time.Millisecond) // several back-off rounds while exhausted
	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("hivegate exited while out of file descriptors: %v\n%s", err, logs.String())
	}
	for _, c := range idle {
		_ = c.Close()
	}
	idle = nil
	waitFor(t, "hivegate to serve again", func() bool { return call() == nil })
	// The burst is over at the first accept 5 s after the last failed one:
	// keep calling until hivegate says so.
	waitFor(t, "the end of the burst to be logged", func() bool {
		if err := call(); err != nil {
			t.Fatalf("a call after the burst: %v\n%s", err, logs.String())
		}
		return strings.Contains(logs.String(), "accepting connections again")
	})
	if n := strings.Count(logs.String(), "out of file descriptors"); n != 1 {
		t.Errorf("the burst was logged %d times, want once:\n%s", n, logs.String())
	}
}
