package layer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"myclaw/tools/builtin"
)

// maxKept bounds a file's content the merge holds: a bigger one is
// compared by its hash only (like a binary file).
const maxKept = 8 << 20

// version is what one path is in one of the merge's three trees.
type version struct {
	kind   byte // 0: none, 'f' file, 'l' link, 'd' folder, 's' anything else
	mode   fs.FileMode
	sum    string // a file's SHA-256
	data   []byte // a file's content when kept (text or not, up to maxKept)
	kept   bool
	target string // a link's
	info   fs.FileInfo
}

// same reports whether a and b are the same thing: kind, mode (a file's
// or a folder's), content or target.
func (v version) same(b version) bool {
	if v.kind != b.kind {
		return false
	}
	switch v.kind {
	case 'f':
		return v.mode == b.mode && v.sum == b.sum
	case 'l':
		return v.target == b.target
	case 'd':
		return v.mode == b.mode
	}
	return v.kind == 0
}

func perm(m fs.FileMode) fs.FileMode {
	return m & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
}

// readVersion reads rel in root, reached one name at a time without
// following a link: none when it or a folder on its way is missing, or a
// name on the way is not a folder.
func readVersion(root *os.Root, rel string) (version, error) {
	segs := strings.Split(filepath.ToSlash(rel), "/")
	for i := 1; i < len(segs); i++ {
		fi, err := root.Lstat(filepath.Join(segs[:i]...))
		if errors.Is(err, fs.ErrNotExist) || err == nil && !fi.IsDir() {
			return version{}, nil
		}
		if err != nil {
			return version{}, err
		}
	}
	fi, err := root.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return version{}, nil
	}
	if err != nil {
		return version{}, err
	}
	v := version{mode: perm(fi.Mode()), info: fi}
	switch m := fi.Mode(); {
	case m.IsDir():
		v.kind = 'd'
	case m&fs.ModeSymlink != 0:
		v.kind = 'l'
		v.target, err = root.Readlink(rel)
	case m.IsRegular():
		v.kind = 'f'
		err = v.readFile(root, rel, fi)
	default:
		v.kind = 's'
	}
	return v, err
}

// readFile hashes the regular file rel (which must still be want) and
// keeps its content up to maxKept.
func (v *version) readFile(root *os.Root, rel string, want fs.FileInfo) error {
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !os.SameFile(fi, want) {
		return fmt.Errorf("%s changed while it was read", rel)
	}
	h := sha256.New()
	var buf bytes.Buffer
	if want.Size() <= maxKept {
		// Kept up to the bound, even if it grows meanwhile; hashed whole.
		if _, err := io.Copy(io.MultiWriter(h, &buf), io.LimitReader(f, maxKept+1)); err != nil {
			return err
		}
	}
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	v.sum = hex.EncodeToString(h.Sum(nil))
	if want.Size() <= maxKept && buf.Len() <= maxKept {
		v.data, v.kept = buf.Bytes(), true
	}
	return nil
}

// beforeWrite keeps the workspace's version of rel before the layer's
// first change of it: what the agent saw, the merge's base.
func (l *Layer) beforeWrite(rel string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.keepBase(rel)
}

func (l *Layer) keepBase(rel string) error {
	if _, ok := l.base[rel]; ok {
		return nil
	}
	v, err := readVersion(l.ws.Root(), rel)
	if err != nil {
		return fmt.Errorf("keep the workspace's version of %s: %w", rel, err)
	}
	l.base[rel] = v
	return nil
}

// captureUpper keeps the base of every path the layer holds that has
// none yet (a shell command changed it): the workspace's version now.
// Between the command's change and this, an edit of the user's to the
// same path would be taken for the base, so the merge would keep the
// agent's version over it; commands are short, and the window is theirs.
// An opaque folder (one removed and made again) keeps the base of what
// was below it.
func (l *Layer) captureUpper() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return filepath.WalkDir(l.upper, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(l.upper, p)
		if rel != "." {
			if err := l.keepBase(rel); err != nil {
				return err
			}
		}
		if d.IsDir() && builtin.IsOpaque(p) {
			return l.keepBelow(rel)
		}
		if !d.IsDir() {
			// A whiteout, file or link over a folder: what was in it is
			// deleted.
			if v := l.base[rel]; v.kind == 'd' {
				return l.keepBelow(rel)
			}
		}
		return nil
	})
}

// keepBelow keeps the base of everything in the workspace below rel.
func (l *Layer) keepBelow(rel string) error {
	sub, err := l.ws.Root().OpenRoot(rel)
	if err != nil {
		return nil // not a folder there: nothing below
	}
	defer sub.Close()
	return fs.WalkDir(sub.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return nil
		}
		return l.keepBase(filepath.Join(rel, filepath.FromSlash(p)))
	})
}
