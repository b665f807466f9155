// Command ripple tells people and AI agents what a dbt change really does to
// the data before it is merged.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/ripple-data/ripple/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.System())
	stop()
	os.Exit(code)
}
