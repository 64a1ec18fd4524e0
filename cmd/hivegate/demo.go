package main

import (
	"context"
	"errors"
	"io"
)

func demoCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("demo: not built yet")
}
