package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/ripple-data/ripple/internal/checks"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/ops"
	"github.com/ripple-data/ripple/internal/web"
)

// serveOptions are the flags of `ripple serve` (and `ripple demo --serve`).
type serveOptions struct {
	Host       string
	Port       int
	ReadOnly   bool
	Config     string
	MaxAge     time.Duration
	BaseBranch string
}

// TokenEnv holds the token `ripple serve` requires off loopback.
const TokenEnv = "RIPPLE_SERVE_TOKEN"

// bindListen adds the flags `ripple demo --serve` shares with serve.
func (o *serveOptions) bindListen(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.Host, "host", "127.0.0.1", "interface to listen on; anything but loopback requires the token in "+TokenEnv)
	f.IntVar(&o.Port, "port", 8000, "port to listen on (0 picks a free one)")
	f.BoolVar(&o.ReadOnly, "read-only", false, "refuse and hide check writes (create, run, approve, reorder, delete)")
	o.Config, o.MaxAge, o.BaseBranch = checks.DefaultConfigFile, dbt.DefaultBaseMaxAge, dbt.DefaultBaseBranch
}

func (o *serveOptions) bind(cmd *cobra.Command) {
	o.bindListen(cmd)
	f := cmd.Flags()
	f.StringVar(&o.Config, "config", checks.DefaultConfigFile, "preset checks file, relative to the project dir (applied at start when it exists)")
	f.DurationVar(&o.MaxAge, "max-age", dbt.DefaultBaseMaxAge, "base artifacts older than this are shown as stale (the rule and default of ripple check-base; 0: no age limit)")
	f.StringVar(&o.BaseBranch, "base-branch", dbt.DefaultBaseBranch, "git branch the base artifacts are built from (staleness, as ripple check-base)")
}

func newServeCmd(g *Globals, ios IOStreams, reg *ops.Registry) *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Review the change in a browser: lineage diff, model detail, column lineage, diffs, impact, checklist",
		Long: "Serves the review UI and a JSON API (POST /api/ops/<operation>, the same input and result as `ripple <op> --json`)\n" +
			"from one process; the UI is embedded in the binary. Loopback only by default; --host with any other address\n" +
			"requires a token in " + TokenEnv + " (open the printed address, which carries it once). The warehouse is\n" +
			"opened read-only, as everywhere.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := dbt.ValidateMaxAge(o.MaxAge); err != nil {
				return usageError{fmt.Errorf("--max-age: %w", err)}
			}
			s := g.NewSession(ios)
			defer s.Close()
			return serveUI(c.Context(), g, ios, reg, s, o)
		},
	}
	o.bind(cmd)
	return cmd
}

// serveUI serves the web UI over s until ctx is done.
func serveUI(ctx context.Context, g *Globals, ios IOStreams, reg *ops.Registry, s *ops.Session, o *serveOptions) error {
	token := os.Getenv(TokenEnv)
	if !web.IsLoopbackHost(o.Host) && token == "" {
		return usageError{fmt.Errorf("--host %s is not a loopback address: set %s to a secret token first (anyone who can reach the port could otherwise read your project)", o.Host, TokenEnv)}
	}
	// Refuse to start on a folder the other commands refuse, with their
	// message, rather than serve a review of nothing (dates of 0001-01-01).
	if _, err := s.Project(ctx); err != nil {
		return err
	}
	if err := g.requireBase(ctx, s); err != nil {
		return err
	}
	if !o.ReadOnly {
		if err := applyPresets(ctx, s, g.ProjectDir, o.Config); err != nil {
			return err
		}
	}
	srv, err := web.New(web.Options{
		Registry: reg, Session: s, ReadOnly: o.ReadOnly, Token: token, Version: Version, Logger: s.Logger(),
		BaseStatus: func(ctx context.Context) web.BaseStatus {
			st := checkBase(ctx, g, o.MaxAge, o.BaseBranch, time.Now())
			return web.BaseStatus{Status: st.Status, Reason: st.Reason}
		},
	})
	if err != nil {
		return err
	}
	addr := net.JoinHostPort(o.Host, strconv.Itoa(o.Port))
	return web.ListenAndServe(ctx, addr, srv, func(a net.Addr) {
		u := url.URL{Scheme: "http", Host: a.String(), Path: "/"}
		if ta, ok := a.(*net.TCPAddr); ok && ta.IP.IsUnspecified() {
			u.Host = net.JoinHostPort("localhost", strconv.Itoa(ta.Port))
		}
		if token != "" {
			u.RawQuery = url.Values{"token": {token}}.Encode()
		}
		fmt.Fprintf(ios.ErrOut, "ripple serve: open %s in a browser (Ctrl-C stops)\n", u.String())
	})
}

// applyPresets creates the preset checks of ripple.yml, when the project has
// one, so the checklist starts with them (as `ripple run` does; unlike it,
// serve never writes a default ripple.yml).
func applyPresets(ctx context.Context, s *ops.Session, projectDir, config string) error {
	path := config
	if !filepath.IsAbs(path) {
		path = filepath.Join(projectDir, path)
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the preset checks %s: %w", path, err)
	}
	store, err := s.Checks(ctx)
	if err != nil {
		return err
	}
	presets, err := checks.ParsePresets(data, store.ValidateParams)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(presets) == 0 {
		return nil
	}
	if _, err := store.ApplyPresets(ctx, presets); err != nil {
		return err
	}
	return store.Save(ctx)
}
