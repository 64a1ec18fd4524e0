package main

import (
	"flag"
	"fmt"
	"io"
)

// newFlagSet returns a command's flag set. It writes to w (the command's
// standard error): on -h or --help the usage line and every flag with its
// default (run then exits 0: flag.ErrHelp is no failure), on a bad flag
// the error and the same list.
func newFlagSet(name, synopsis string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprintf(w, "Usage: hivegate %s\n", synopsis)
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n == 0 {
			fmt.Fprintln(w, "\nNo flags.")
			return
		}
		fmt.Fprintln(w, "\nFlags:")
		fs.PrintDefaults()
	}
	return fs
}
