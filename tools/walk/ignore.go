package walk

import (
	"bytes"
	"io"
	"io/fs"
	"strings"
)

// IgnoreFiles are the per-folder files whose patterns exclude entries, in
// rising priority: .ignore and .myclawignore hide what git tracks but a
// search should not show, and may re-include with "!" what .gitignore
// excludes.
var IgnoreFiles = []string{".gitignore", ".ignore", ".myclawignore"}

// maxIgnoreBytes bounds how much of one ignore file is read: git reads
// every line, and so does the walk up to this size, far past any real
// file; a larger one is cut there and named in Stats.CutIgnoreFiles.
var maxIgnoreBytes = 64 << 20

// rule is one ignore pattern, parsed as git's dir.c parses it.
type rule struct {
	base string // the folder of its file, from the walk's root: "" or "dir/"
	// up is the path from the rule's folder down to the walk's root, for
	// the rules of folders above it (Repo): "" or "dir/".
	up        string
	pat       string // without "!", a trailing "/" and, with a slash, a leading one
	negative  bool
	mustBeDir bool // it ended in "/"
	noDir     bool // no slash: matched against the last name only
	literal   bool // no wildcard: compared as is
	// prefix is the length of the literal start of a pattern with a
	// slash. git compares it as is and wildmatches only the rest, so a
	// "**" right after it acts as a leading one ("x**/a" matches "xa"
	// as "**/a" matches "a"): the same is done here.
	prefix int
}

// rules are the patterns in force in one folder, in rising priority. A
// slice is never changed once built: children share their parent's.
type rules []rule

var bom = []byte("\xef\xbb\xbf")

// parseIgnore turns the text of an ignore file into rules for the folder
// base ("" or "dir/"), as git reads one: a UTF-8 byte order mark at the
// start is skipped, lines end at "\n" (a "\r" before it is dropped),
// lines starting with "#" are comments, and unescaped trailing spaces are
// not part of a pattern.
func parseIgnore(data []byte, base, up string) rules {
	data = bytes.TrimPrefix(data, bom)
	var out rules
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if r, ok := parseLine(trimTrailingSpaces(string(line)), base, up); ok {
			out = append(out, r)
		}
	}
	return out
}

// trimTrailingSpaces drops the spaces at the end of a line unless a
// backslash escapes them (git's trim_trailing_spaces).
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i >= len(s) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

func parseLine(p, base, up string) (rule, bool) {
	r := rule{base: base, up: up}
	if strings.HasPrefix(p, "!") {
		r.negative, p = true, p[1:]
	}
	if strings.HasSuffix(p, "/") {
		r.mustBeDir, p = true, p[:len(p)-1]
	}
	r.noDir = !strings.Contains(p, "/")
	if !r.noDir {
		p = strings.TrimPrefix(p, "/")
	}
	if p == "" {
		return rule{}, false // matches nothing
	}
	r.pat = p
	r.prefix = strings.IndexAny(p, `*?[\`)
	r.literal = r.prefix < 0
	return r, true
}

// match reports whether the rule matches the entry at p (a slash path
// from the walk's root, below the rule's folder) whose last name is name.
func (r *rule) match(p, name string, isDir bool) bool {
	if r.mustBeDir && !isDir {
		return false
	}
	if r.noDir {
		if r.literal {
			return r.pat == name
		}
		return wildmatch(r.pat, name, false)
	}
	rel := p[len(r.base):]
	if r.up != "" {
		rel = r.up + rel
	}
	if r.literal {
		return r.pat == rel
	}
	if r.prefix > len(rel) || rel[:r.prefix] != r.pat[:r.prefix] {
		return false
	}
	return wildmatch(r.pat[r.prefix:], rel[r.prefix:], true)
}

// excludes reports whether the entry at p is ignored: the last rule that
// matches it decides.
func (rs rules) excludes(p, name string, isDir bool) bool {
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].match(p, name, isDir) {
			return !rs[i].negative
		}
	}
	return false
}

// with returns rs followed by more, without changing rs.
func (rs rules) with(more rules) rules {
	if len(more) == 0 {
		return rs
	}
	return append(rs[:len(rs):len(rs)], more...)
}

// readIgnore reads an ignore file of fsys, at most maxIgnoreBytes of it
// (cut says it was longer). A file that is missing or cannot be read
// excludes nothing.
func readIgnore(fsys fs.FS, name string) (data []byte, cut bool) {
	f, err := openRegular(fsys, name)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	return readBounded(f)
}

func readBounded(r io.Reader) ([]byte, bool) {
	data, _ := io.ReadAll(io.LimitReader(r, int64(maxIgnoreBytes)+1))
	if len(data) > maxIgnoreBytes {
		// Cut at the last whole line, not inside a pattern.
		return data[:bytes.LastIndexByte(data[:maxIgnoreBytes], '\n')+1], true
	}
	return data, false
}
