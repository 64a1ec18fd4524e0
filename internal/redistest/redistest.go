// Package redistest starts real redis-server processes for tests: each on a
// free 127.0.0.1 port, without persistence, in a temporary directory, killed
// when the test ends.
package redistest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is a redis-server process of one test's own, on a free
// 127.0.0.1 port, without persistence, in a temporary directory. It is
// killed when the test ends.
type Server struct {
	t      testing.TB
	bin    string
	dir    string
	port   int
	extra  []string
	cmd    *exec.Cmd
	exited chan struct{}
}

// Start starts a redis-server with extra arguments. Without
// redis-server the test is skipped, or fails when CI=true: CI must run it.
func Start(t testing.TB, extra ...string) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redis-server is not installed, and CI=true requires the shared-cache tests: %v", err)
		}
		t.Skip("redis-server is not installed (apt-get install redis-server); CI=true makes this a failure")
	}
	s := &Server{t: t, bin: bin, dir: t.TempDir(), extra: extra}
	for attempt := 1; ; attempt++ {
		s.port = FreePort(t)
		err := s.start()
		if err == nil {
			break
		}
		if attempt == 5 {
			t.Fatalf("starting redis-server: %v", err)
		}
	}
	t.Cleanup(s.Kill)
	return s
}

// FreePort returns a TCP port that was free on 127.0.0.1 a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}

// start runs redis-server on s.port and waits until it answers PING.
func (s *Server) start() error {
	logFile := filepath.Join(s.dir, "redis.log")
	args := append([]string{
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.dir,
		"--logfile", logFile, "--daemonize", "no",
		"--enable-debug-command", "yes",
	}, s.extra...)
	cmd := exec.Command(s.bin, args...)
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, DialTimeout: time.Second})
	defer func() { _ = c.Close() }()
	deadline := time.Now().Add(15 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			s.cmd, s.exited = cmd, exited
			return nil
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(logFile)
			return fmt.Errorf("redis-server exited: %s", log)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-exited
			return errors.New("redis-server did not answer PING within 15s")
		}
	}
}

// Kill stops the server with SIGKILL, as a crash would.
func (s *Server) Kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
	s.cmd = nil
}

// Restart starts a killed server again on the same port (empty: nothing
// was persisted).
func (s *Server) Restart() {
	s.t.Helper()
	if err := s.start(); err != nil {
		s.t.Fatalf("restarting redis-server: %v", err)
	}
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// URL is the server's redis:// URL.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// Client returns a client for inspecting the server, with room for slow
// commands such as DEBUG SLEEP.
func (s *Server) Client() *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), ReadTimeout: 30 * time.Second, MaxRetries: -1})
	s.t.Cleanup(func() { _ = c.Close() })
	return c
}
