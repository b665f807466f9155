package checks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// ErrUnsafeOverwrite is wrapped by Save when the file on disk is corrupt or from a newer Ripple:
// saving would destroy data, so it fails unless SaveOptions.Force is set.
var ErrUnsafeOverwrite = errors.New("refusing to overwrite state file")

// StateFile reads and atomically writes one state file. Writers are serialised by a mutex inside
// the process and, across processes, an advisory lock file (<target>.lock, flock, removed after
// each write). Readers need no lock: a save replaces the file with a single rename, so a reader
// sees the old or the new file, never a partial one. Safe for concurrent use.
type StateFile struct {
	path string
	mu   sync.Mutex
	// last is the file this StateFile wrote last; when the file on disk is still that one, Save
	// skips re-reading it (it is known valid and holds nothing new to merge).
	last os.FileInfo
}

// NewStateFile returns a StateFile for path ("" means DefaultStateFile; a directory means
// DefaultStateFile inside it).
func NewStateFile(path string) *StateFile {
	if path == "" {
		path = DefaultStateFile
	} else if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, DefaultStateFile)
	}
	return &StateFile{path: path}
}

// Path is the state file's path.
func (f *StateFile) Path() string { return f.path }

// Load reads and validates the file. A missing file returns an error wrapping fs.ErrNotExist;
// see DecodeState for corrupt and newer-version errors (both also name the path).
func (f *StateFile) Load(ctx context.Context) (*State, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(f.path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("state file %s does not exist: %w", f.path, err)
		}
		return nil, fmt.Errorf("reading state file %s: %w", f.path, err)
	}
	st, err := DecodeState(data)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", f.path, err)
	}
	return st, nil
}

// LoadOrNew is Load, returning an empty state when the file does not exist yet.
func (f *StateFile) LoadOrNew(ctx context.Context) (*State, error) {
	st, err := f.Load(ctx)
	if errors.Is(err, fs.ErrNotExist) {
		return NewState(), nil
	}
	return st, err
}

// SaveOptions control Save.
type SaveOptions struct {
	// Force overwrites a file that is corrupt or from a newer Ripple (normally an error).
	Force bool
	// Merge first merges the file's current content into the state being saved (see Merge), so a
	// concurrent writer's checks and runs are not lost. A Store always merges (three-way, see
	// Store.Save); this is for saving a bare State.
	Merge bool
}

// Save writes st atomically (see Update); with opts.Merge the file's content is merged in first.
// st is not modified; GeneratedAt is set on the written copy.
func (f *StateFile) Save(ctx context.Context, st *State, opts SaveOptions) error {
	return f.Update(ctx, opts.Force, func(disk *State, _ bool) (*State, error) {
		out := st.clone()
		if opts.Merge && disk != nil {
			Merge(out, disk)
		}
		return out, nil
	})
}

// Update is a read-modify-write of the file under the process mutex and the cross-process lock:
// it reads the file, calls fn with its content (nil when the file does not exist yet, or when
// ours is true: the file is still exactly what this StateFile last wrote, so it is not read
// again), and writes fn's result atomically: temp file in the same directory, fsync, rename over
// the target, fsync of the directory. A file that does not decode (corrupt, or from a newer
// Ripple) is never replaced (ErrUnsafeOverwrite) unless force; fn then sees nil. A symbolic link
// at the path is written through: the file it points to is replaced, the link stays. ctx bounds
// the wait for the lock. Orphaned temp files from writers killed mid-save are removed.
func (f *StateFile) Update(ctx context.Context, force bool, fn func(disk *State, ours bool) (*State, error)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	target, err := resolveLinks(f.path)
	if err != nil {
		return err
	}
	unlock, err := lockFile(ctx, target+".lock")
	if err != nil {
		return fmt.Errorf("locking state file %s: %w", f.path, err)
	}
	defer unlock()

	var disk *State
	ours := f.unchangedSinceLastSave(target)
	if !ours {
		if disk, err = readExisting(target, force); err != nil {
			return err
		}
	}
	out, err := fn(disk, ours)
	if err != nil {
		return err
	}
	out = out.clone()
	out.GeneratedAt = time.Now().UTC()
	data, err := EncodeState(out)
	if err != nil {
		return err
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	f.removeOrphans(dir, base)
	f.last = nil
	if err := writeAtomic(dir, base, data); err != nil {
		return err
	}
	if fi, err := os.Stat(target); err == nil {
		f.last = fi
	}
	return nil
}

// readExisting decodes the file at path: nil when it does not exist, an error when it does not
// decode (unless force, then nil: it will be replaced).
func readExisting(path string, force bool) (*State, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading state file %s before saving: %w", path, err)
	}
	existing, derr := DecodeState(data)
	switch {
	case derr != nil && !force:
		return nil, fmt.Errorf("%w %s: %w; move it aside or save with force", ErrUnsafeOverwrite, path, derr)
	case derr != nil:
		return nil, nil
	}
	return existing, nil
}

// maxLinks bounds how many symbolic links resolveLinks follows, as the kernel does.
const maxLinks = 40

// resolveLinks follows symbolic links at path to the file they name (which may not exist yet).
// Writing through a link keeps a user's state file where the link points, instead of replacing
// the link with a regular file.
func resolveLinks(path string) (string, error) {
	for i := 0; i < maxLinks; i++ {
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", fmt.Errorf("state file %s: %w", path, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if !fi.Mode().IsRegular() {
				return "", fmt.Errorf("state file %s is not a regular file (%s); point --state-file at a file", path, fi.Mode().Type())
			}
			return path, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", fmt.Errorf("state file %s: %w", path, err)
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return "", fmt.Errorf("state file %s: more than %d symbolic links; point --state-file at the file itself", path, maxLinks)
}

func (f *StateFile) unchangedSinceLastSave(target string) bool {
	if f.last == nil {
		return false
	}
	fi, err := os.Stat(target)
	return err == nil && os.SameFile(fi, f.last) && fi.Size() == f.last.Size() && fi.ModTime().Equal(f.last.ModTime())
}

func tempPrefix(base string) string { return "." + base + ".tmp-" }

// removeOrphans deletes temp files left by writers that died mid-save. Only lock holders create
// temp files, and we hold the lock, so every match is an orphan.
func (f *StateFile) removeOrphans(dir, base string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix(base)) {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

func writeAtomic(dir, base string, data []byte) (err error) {
	target := filepath.Join(dir, base)
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(target); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, tempPrefix(base)+"*")
	if err != nil {
		return fmt.Errorf("creating temp file next to %s (is the directory writable?): %w", target, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", tmp.Name(), err)
	}
	if err = tmp.Chmod(mode); err != nil {
		return fmt.Errorf("setting mode of %s: %w", tmp.Name(), err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", tmp.Name(), err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", tmp.Name(), err)
	}
	if err = os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("replacing %s: %w", target, err)
	}
	return syncDir(dir)
}
