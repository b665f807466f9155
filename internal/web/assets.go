package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"
)

// dist is the UI built from web/ (npm run build); it is committed so that
// `go build` needs no Node, and scripts/web.sh fails when it is stale.
//
//go:embed all:dist
var dist embed.FS

// assets are the embedded files with their ETags, read once.
type assets struct {
	files map[string]asset
}

type asset struct {
	body        []byte
	etag        string
	contentType string
}

func loadAssets() (*assets, error) {
	root, err := fs.Sub(dist, "dist")
	if err != nil {
		return nil, err
	}
	a := &assets{files: map[string]asset{}}
	err = fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(root, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		ct := mime.TypeByExtension(path.Ext(p))
		if ct == "" {
			ct = http.DetectContentType(b)
		}
		a.files["/"+p] = asset{body: b, etag: `"` + hex.EncodeToString(sum[:8]) + `"`, contentType: ct}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if _, ok := a.files["/index.html"]; !ok {
		return nil, errors.New("web: the embedded UI has no index.html (run `bash scripts/web.sh`)")
	}
	return a, nil
}

// handleAsset serves the UI. Screens are addressed by the URL fragment, so
// every path that is not a file gets index.html.
func (s *Server) handleAsset(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, "input", r.Method+" is not allowed on "+r.URL.Path)
		return
	}
	f, ok := s.assets.files[r.URL.Path]
	if !ok {
		if strings.HasPrefix(r.URL.Path, "/assets/") {
			http.NotFound(w, r)
			return
		}
		f = s.assets.files["/index.html"]
	}
	h := w.Header()
	h.Set("Content-Type", f.contentType)
	// Revalidate every time: the files change with the binary, and the
	// ETag makes the check cheap.
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", f.etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.body))
}
