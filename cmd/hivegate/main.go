// Command hivegate is a caching JSON-RPC and Connect/gRPC gateway for Hive
// API nodes. See the README for the commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is the gateway's semantic version, reported by GET / and --version.
const version = "0.1.0"

const usage = `hivegate — a caching JSON-RPC and Connect/gRPC gateway for Hive API nodes

Usage:
  hivegate serve [--config FILE] [--node-url URL] [--listen HOST:PORT] [--admin-listen HOST:PORT]
  hivegate demo [--listen HOST:PORT]
  hivegate route [--config FILE] '<json-rpc request>'
  hivegate config check FILE
  hivegate config default
  hivegate version [--short]

Every command lists its flags with --help.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one subcommand and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = serveCmd(ctx, args[1:], stderr)
	case "demo":
		err = demoCmd(ctx, args[1:], stdout, stderr)
	case "route":
		err = routeCmd(args[1:], stdout, stderr)
	case "config":
		err = configCmd(args[1:], stdout, stderr)
	case "version", "--version", "-version":
		err = versionCmd(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "hivegate: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0 // the command printed its usage and flags
	}
	if err != nil {
		fmt.Fprintln(stderr, "hivegate:", err)
		return 1
	}
	return 0
}
