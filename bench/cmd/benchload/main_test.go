package main

import (
	"io"
	"slices"
	"testing"
)

func TestParseFlags(t *testing.T) {
	t.Parallel()
	o, err := parseFlags([]string{"-only", "2a, 3b,,mem", "-conns", "16", "-server-cpus", "1", "-mem-capacity-mib", "8"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	c := o.cfg
	if !slices.Equal(c.Only, []string{"2a", "3b", "mem"}) {
		t.Errorf("Only = %q", c.Only)
	}
	if c.UpstreamConns != 16 || c.BackendCPUs != "1" || c.NodeCPUs != "1" || c.Memory.Capacity != 8<<20 {
		t.Errorf("defaults not derived: upstream %d, backend CPUs %q, node CPUs %q, capacity %d", c.UpstreamConns, c.BackendCPUs, c.NodeCPUs, c.Memory.Capacity)
	}
	o, err = parseFlags([]string{"-client-cpus", "3", "-node-cpus", "2"}, io.Discard)
	if err != nil || o.cfg.NodeCPUs != "2" {
		t.Errorf("-node-cpus 2: NodeCPUs %q, err %v", o.cfg.NodeCPUs, err)
	}
	bad := [][]string{
		{"-threads", "4", "-conns", "2"},
		{"-duration", "500ms"},
		{"-mem-method", "lists"},
		{"-mem-capacity-mib", "-1"},
		{"extra-arg"},
	}
	for _, args := range bad {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("parseFlags(%q) accepted", args)
		}
	}
}

func TestSafeName(t *testing.T) {
	t.Parallel()
	cases := map[string]string{"vm": "vm", "my host/1": "my-host-1", "": "host", "a.b-c_d": "a.b-c_d"}
	for in, want := range cases {
		if got := safeName(in); got != want {
			t.Errorf("safeName(%q) = %q, want %q", in, got, want)
		}
	}
}
