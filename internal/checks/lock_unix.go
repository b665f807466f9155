//go:build unix

package checks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockFile takes an exclusive flock on path, polling so ctx can cancel the wait. The lock file is
// created for the save and removed after it, so no empty file is left next to the user's state
// file. Removing it is safe because a waiter that locked a file already removed (by the holder
// before it) sees that path names another file, or none, and starts over. A symbolic link at
// path is never followed (O_NOFOLLOW): the lock would land in a file the link names.
func lockFile(ctx context.Context, path string) (func(), error) {
	delay := time.Millisecond
	for {
		fd, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("lock file %s is a symbolic link; Ripple does not follow it: remove it", path)
		}
		if err != nil {
			return nil, fmt.Errorf("opening lock file: %w", err)
		}
		for {
			err := syscall.Flock(int(fd.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
			if err == nil {
				break
			}
			if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
				_ = fd.Close()
				return nil, fmt.Errorf("flock %s: %w", path, err)
			}
			select {
			case <-ctx.Done():
				_ = fd.Close()
				return nil, fmt.Errorf("waiting for lock %s held by another ripple process: %w", path, ctx.Err())
			case <-time.After(delay):
			}
			delay = min(delay*2, 50*time.Millisecond)
		}
		if sameFile(fd, path) {
			return func() {
				_ = os.Remove(path) // before unlocking: see above
				_ = syscall.Flock(int(fd.Fd()), syscall.LOCK_UN)
				_ = fd.Close()
			}, nil
		}
		_ = fd.Close()
	}
}

// sameFile reports whether the open file fd is still the one named path.
func sameFile(fd *os.File, path string) bool {
	a, err := fd.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
}

// syncDir fsyncs a directory so a rename inside it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("opening directory %s to sync it: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	return nil
}
