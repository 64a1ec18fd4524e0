package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/router"
)

// loadConfig loads FILE; when FILE is empty, the file HIVEGATE_CONFIG
// names if it exists (the container image sets /config.yaml), else the
// embedded default with the node URL from the flag or HIVEGATE_NODE_URL
// (configfile.go).
func loadConfig(file, nodeURL string) (*config.Config, error) {
	if file == "" {
		return loadDefaultConfig(nodeURL, os.Getenv(configEnv))
	}
	return config.Load(file)
}

func routeCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("route", "route [--config FILE] [--node-url URL] '<json-rpc request>'", stderr)
	file := fs.String("config", "", "config file (.yaml or .json); default: the file "+configEnv+" names if it exists, else the embedded default")
	nodeURL := fs.String("node-url", "", "node URL for the embedded default (or "+config.NodeURLEnv+")")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New(`route wants one JSON-RPC request, e.g. '{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_block","params":[1]}'`)
	}
	if *file == "" && *nodeURL == "" && os.Getenv(config.NodeURLEnv) == "" {
		*nodeURL = "http://node.invalid"
	}
	cfg, err := loadConfig(*file, *nodeURL)
	if err != nil {
		return err
	}
	r, err := router.New(cfg)
	if err != nil {
		return err
	}
	body, perr := jsonrpc.ParseBody([]byte(fs.Arg(0)), 1, 0)
	if perr != nil {
		return errors.New(perr.Message)
	}
	el := body.Elements[0]
	if el.Err != nil {
		return errors.New(el.Err.Message)
	}
	call, err := r.Parse(el.Req.Method, el.Req.Params)
	if err != nil {
		return err
	}
	ex, err := r.Explain(call)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(ex)
}

func configCmd(args []string, stdout, stderr io.Writer) error {
	sub := ""
	if len(args) > 0 {
		sub, args = args[0], args[1:]
	}
	var fs *flag.FlagSet
	var defaultNode *string
	switch sub {
	case "check":
		fs = newFlagSet("config check", "config check FILE", stderr)
	case "default":
		fs = newFlagSet("config default", "config default [--node-url URL]", stderr)
		defaultNode = fs.String("node-url", "", "the node backend's URL written into the printed config (or "+config.NodeURLEnv+"; a placeholder when neither is set)")
	case "-h", "-help", "--help":
		fmt.Fprint(stderr, "Usage: hivegate config check FILE | hivegate config default\n\n"+
			"  check FILE  load FILE and build what serve builds from it (no listener,\n"+
			"              no node contacted); print its errors, warnings and route table\n"+
			"  default     print the embedded default config, with its node backend\n"+
			"              (--node-url, "+config.NodeURLEnv+" or a placeholder), as a file\n"+
			"              that config check and serve --config accept\n")
		return flag.ErrHelp
	default:
		return errors.New("usage: hivegate config check FILE | hivegate config default")
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if sub == "default" {
		if fs.NArg() != 0 {
			return errors.New("usage: hivegate config default [--node-url URL]")
		}
		return printDefault(stdout, *defaultNode)
	}
	if fs.NArg() != 1 {
		return errors.New("usage: hivegate config check FILE")
	}
	cfg, err := config.Load(fs.Arg(0))
	if err != nil {
		return err
	}
	// Everything serve builds from the config, so that every error serve
	// would report is reported here; nothing listens or is contacted.
	if err := gateway.Check(cfg); err != nil {
		return err
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	printRouteTable(stdout, cfg)
	return nil
}

// placeholderNodeURL is the node backend `config default` writes when no
// URL is given: a file to edit, and one that loads as it is.
const placeholderNodeURL = "http://127.0.0.1:8091"

// printDefault prints the embedded default config followed by the backends
// section serve adds from --node-url, so that the printed text is a config
// file of its own: serve builds the same gateway from it as from the flag.
func printDefault(w io.Writer, nodeURL string) error {
	note := "the node's URL (serve --node-url or " + config.NodeURLEnv + " gives it without a file)"
	if nodeURL == "" {
		nodeURL = os.Getenv(config.NodeURLEnv)
	}
	if nodeURL == "" {
		nodeURL, note = placeholderNodeURL, "a placeholder: write your node's URL here"
	}
	if _, err := w.Write(config.DefaultYAML()); err != nil {
		return err
	}
	b, err := json.Marshal(nodeURL) // a YAML flow scalar, quoted and escaped
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "\n# %s\nbackends:\n  hived: [%s]\n", note, b)
	return err
}

// printRouteTable prints every configured key with its effective backend,
// ttl, timeout and retries (gateway.RouteTable, also served at GET
// /admin/routes).
func printRouteTable(w io.Writer, cfg *config.Config) {
	r, err := router.New(cfg)
	if err != nil {
		fmt.Fprintln(w, "no route table:", err)
		return
	}
	table := gateway.RouteTable(r)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tBACKEND\tTTL\tTIMEOUT\tRETRIES")
	for _, e := range table {
		if !e.Routed {
			fmt.Fprintf(tw, "%s\t(no route)\t\t\t\n", e.Key)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%v\t%gs\t%d\n", e.Key, e.Backend, e.TTL, e.TimeoutS, e.Retries)
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "\n%d backends, %d keys; default namespace %s\n", len(cfg.Backends), len(table), cfg.DefaultNamespace)
}
