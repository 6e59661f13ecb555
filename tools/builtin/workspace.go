package builtin

import (
	"errors"
	"fmt"
	"io/fs"
	"myclaw/tools"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Workspace confines file access to one directory tree through os.Root.
//
// Paths from the model are first checked lexically by Rel (no "..", no
// absolute path outside the root); every access then goes through Root, so a
// symbolic link that leads out is refused by the operating system as well.
// A Workspace is safe for concurrent use.
type Workspace struct {
	dir   string // absolute, symlinks resolved
	alias string // absolute as given, before resolving symlinks
	root  *os.Root
	// protected are myclaw's own directories and files that lie inside
	// the root, as clean slash paths relative to it; fixed by Protect
	// before the tools run.
	protected []string
	// beforeWrite, set on an edit layer's view (View), hears of each
	// file a file tool is about to write.
	beforeWrite func(rel string) error
	// buffers, when set, reads files as an editor holds them (buffers.go).
	buffers bufferReader
}

// Protect puts myclaw's own state and config directories (and files)
// off limits to the file tools wherever they lie inside the workspace:
// the undo journal, transcripts and blobs hold earlier contents and the
// conversation, and the config sets the autonomy level, so no read,
// listing or write may reach them at any autonomy level. Paths outside
// the workspace are ignored. Call it before the tools are used.
func (w *Workspace) Protect(paths ...string) {
	for _, p := range paths {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		for _, cand := range []string{abs, tools.ResolveExisting(abs)} {
			for _, dir := range []string{w.dir, w.alias} {
				if rel, ok := wsWithin(dir, cand); ok && rel != "." {
					w.protected = append(w.protected, filepath.ToSlash(rel))
				}
			}
		}
	}
}

// isProtected reports whether the clean relative slash path rel is one of
// the protected paths or lies under one (up to case and normalisation
// where the file system ignores them, see wsFoldingFS).
func (w *Workspace) isProtected(rel string) bool {
	for _, p := range w.protected {
		if wsPathWithin(rel, p) {
			return true
		}
	}
	return false
}

// checkProtected refuses rel when it, or what its symbolic links lead to,
// is protected.
func (w *Workspace) checkProtected(path, rel string) *tools.Error {
	if len(w.protected) == 0 {
		return nil
	}
	hit := w.isProtected(rel)
	if !hit {
		if resolved, ok := wsWithin(w.dir, tools.ResolveExisting(filepath.Join(w.dir, filepath.FromSlash(rel)))); ok {
			hit = w.isProtected(filepath.ToSlash(resolved))
		}
	}
	if !hit {
		return nil
	}
	return tools.Errorf(tools.KindPermissionDenied,
		"This is myclaw's own state or configuration (undo journal, transcripts, settings); the file tools never read, list or change it. Work on the project's files instead, or ask the user.",
		"path %q is inside myclaw's own state or configuration directory", path).With("path", path)
}

// OpenWorkspace opens dir as a workspace root. dir is made absolute and its
// symbolic links are resolved, so Dir names the real directory.
func OpenWorkspace(dir string) (*Workspace, error) {
	if dir == "" {
		return nil, errors.New("open workspace: the directory name is empty")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", dir, err)
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", dir, err)
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("open workspace %s: not a directory", dir)
	}
	root, err := os.OpenRoot(resolved)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", dir, err)
	}
	return &Workspace{dir: resolved, alias: filepath.Clean(abs), root: root}, nil
}

// Dir returns the absolute path of the root, symlinks resolved.
func (w *Workspace) Dir() string { return w.dir }

// Root returns the os.Root through which all file access goes.
func (w *Workspace) Root() *os.Root { return w.root }

// Close releases the root directory.
func (w *Workspace) Close() error {
	tempRecords.Lock()
	delete(tempRecords.byDir, w.dir)
	tempRecords.Unlock()
	return w.root.Close()
}

// unquote takes back a path the tools showed Go-quoted (fsShowPath quotes
// a name holding a control, invisible or line-breaking character, or a
// byte that is not UTF-8, as "\xff"), so that the name can be opened
// again; a file whose name really is quoted wins.
func (w *Workspace) unquote(path string) string {
	if len(path) < 2 || path[0] != '"' || path[len(path)-1] != '"' {
		return path
	}
	u, err := strconv.Unquote(path)
	if err != nil || u == "" {
		return path
	}
	if _, err := w.root.Lstat(path); err == nil {
		return path
	}
	return u
}

// Rel turns a path from the model into a clean slash path relative to the
// root ("." for the root itself). It accepts relative paths and absolute
// paths inside the root; it refuses empty paths and NUL bytes (invalid_args)
// and anything that lexically leaves the root (permission_denied). Symbolic
// links are not resolved here: Root refuses those that lead out on access.
func (w *Workspace) Rel(path string) (string, *tools.Error) {
	path = w.unquote(path)
	if path == "" {
		return "", tools.Errorf(tools.KindInvalidArgs, "Give a path relative to the workspace, for example \"src/main.go\".", "path is empty")
	}
	if strings.IndexByte(path, 0) >= 0 {
		return "", tools.Errorf(tools.KindInvalidArgs, "Remove the NUL byte; file names cannot contain it.", "path %q contains a NUL byte", path)
	}
	if path == "~" || strings.HasPrefix(path, "~/") {
		return "", w.outside(path, "refers to the home directory, which is outside the workspace")
	}
	clean := filepath.Clean(path)
	if filepath.IsAbs(clean) {
		rel, ok := wsWithin(w.dir, clean)
		if !ok && w.alias != w.dir {
			rel, ok = wsWithin(w.alias, clean)
		}
		if !ok {
			return "", w.outside(path, "is outside the workspace")
		}
		clean = rel
	} else if filepath.VolumeName(clean) != "" || os.IsPathSeparator(clean[0]) {
		// Windows: a drive-relative (C:x) or rooted (\x) path is not
		// relative to the workspace.
		return "", w.outside(path, "is outside the workspace")
	} else if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", w.outside(path, "is outside the workspace")
	}
	rel := w.canonical(filepath.ToSlash(clean))
	if e := w.checkProtected(path, rel); e != nil {
		return "", e
	}
	if rel != "." && (strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(filepath.Separator))) {
		// A trailing slash names a folder, as it does for the OS: "code.py/"
		// is not a way to reach the file code.py.
		if fi, err := w.root.Stat(clean); err == nil && !fi.IsDir() {
			return "", tools.Errorf(tools.KindInvalidArgs, "Drop the trailing slash to use the file "+rel+".",
				"path %q ends with a slash, which names a folder, but %s is a file", path, rel).With("path", path)
		}
	}
	return rel, nil
}

// wsWithin returns abs relative to dir when abs lies inside dir.
func wsWithin(dir, abs string) (string, bool) {
	rel, err := filepath.Rel(dir, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

func (w *Workspace) outside(path, why string) *tools.Error {
	return tools.Errorf(tools.KindPermissionDenied, w.insideHint(), "path %q %s", path, why).
		With("path", path).With("workspace", w.dir)
}

func (w *Workspace) insideHint() string {
	return fmt.Sprintf("Use a path inside the workspace %s, relative to it (for example \"src/main.go\"); glob_list shows what is there.", w.dir)
}

// osError maps an error from Root about rel to the *Error the model reads.
func (w *Workspace) osError(rel string, err error) *tools.Error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tools.Errorf(tools.KindNotFound, "Check the path: glob_list with a pattern like \"**/"+filepath.Base(rel)+"\" finds files by name; paths are relative to the workspace.", "%s does not exist", rel).With("path", rel)
	case wsIsEscape(err):
		return tools.Errorf(tools.KindPermissionDenied, w.insideHint(), "%s leads outside the workspace through a symbolic link (links must be relative and stay inside)", rel).With("path", rel).With("workspace", w.dir)
	case errors.Is(err, syscall.ENOTDIR):
		return tools.Errorf(tools.KindNotFound, "Check the path with glob_list; one of its folders is a file.", "a parent of %s is not a folder", rel).With("path", rel)
	case errors.Is(err, syscall.ELOOP):
		return tools.Errorf(tools.KindInvalidArgs, "The path goes through a loop of symbolic links; use another path.", "too many levels of symbolic links at %s", rel).With("path", rel)
	case errors.Is(err, syscall.ENAMETOOLONG):
		return tools.Errorf(tools.KindInvalidArgs, "Use a shorter path.", "the path %s is too long", rel).With("path", rel)
	case errors.Is(err, fs.ErrPermission):
		return tools.Errorf(tools.KindPermissionDenied, "The operating system refuses this access; ask the user to change the file's permissions, or use another file.", "access to %s is denied by the operating system", rel).With("path", rel)
	case errors.Is(err, syscall.EROFS):
		return tools.Errorf(tools.KindPermissionDenied, "The file system is read-only; tell the user.", "%s is on a read-only file system", rel).With("path", rel)
	case errors.Is(err, syscall.ENOSPC):
		return tools.Errorf(tools.KindQuotaExceeded, "The disk is full; tell the user.", "no space left on the device while writing %s", rel).With("path", rel)
	}
	return tools.Errorf(tools.KindUnknown, "An unexpected file system error occurred; report it to the user rather than retrying blindly.", "%s: %s", rel, wsStripRoot(err.Error(), w.dir))
}

// wsIsEscape reports whether err is os.Root refusing a path that leads out
// of the root. The standard library does not export that error.
func wsIsEscape(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

func wsStripRoot(msg, dir string) string {
	return strings.ReplaceAll(msg, dir+string(filepath.Separator), "")
}
