package faults

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"syscall"
	"time"
)

// Flap alternates the server between Healthy for up and down (a fault) for
// down until ctx ends, then leaves it Healthy. It returns at once.
func (s *Server) Flap(ctx context.Context, up, down time.Duration, fault Fault) {
	go func() {
		defer s.Set(Healthy)
		for {
			s.Set(Healthy)
			if !wait(ctx, up) {
				return
			}
			s.Set(fault)
			if !wait(ctx, down) {
				return
			}
		}
	}()
}

func wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// NoListenerURL returns the URL of a 127.0.0.1 port nothing listens on:
// connections to it are refused.
func NoListenerURL() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("faults: listen: %w", err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return "http://" + addr + "/", nil
}

// Blackhole is a 127.0.0.1 address whose connection attempts are never
// answered: its listen queue is full and nothing accepts, so the kernel
// drops further SYNs and a dial waits until its timeout, as with a host
// that is down or behind a dropping firewall.
type Blackhole struct {
	// URL is the blackholed base URL.
	URL  string
	fd   int
	fill net.Conn
}

// NewBlackhole opens a Blackhole (Linux).
func NewBlackhole() (*Blackhole, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return nil, fmt.Errorf("faults: socket: %w", err)
	}
	b := &Blackhole{fd: fd}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		b.Close()
		return nil, fmt.Errorf("faults: bind: %w", err)
	}
	// A backlog of 0 queues one connection; the one made below fills it.
	if err := syscall.Listen(fd, 0); err != nil {
		b.Close()
		return nil, fmt.Errorf("faults: listen: %w", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("faults: getsockname: %w", err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port))
	b.fill, err = net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("faults: filling the listen queue: %w", err)
	}
	b.URL = "http://" + addr + "/"
	return b, nil
}

// Close releases the address.
func (b *Blackhole) Close() {
	if b.fill != nil {
		_ = b.fill.Close()
	}
	_ = syscall.Close(b.fd)
}
