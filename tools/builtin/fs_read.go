package builtin

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/transform"

	"myclaw/tools"
)

//go:embed fs_read.md
var fsReadDescription string

// Limits of fs_read.
const (
	fsReadDefaultLimit = 2000
	fsReadMaxBody      = 50 << 10
	fsReadMaxLine      = 2000
)

const fsReadSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to read, relative to the workspace (an absolute path inside it also works)."},
    "offset": {"type": "integer", "minimum": 1, "description": "First line to show, 1-based. Default 1."},
    "limit": {"type": "integer", "minimum": 1, "description": "Most lines to show. Default 2000."}
  },
  "required": ["path"],
  "additionalProperties": false
}`

type fsReadArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

// fsReadOutput is what fs_read tells the model besides the text itself.
type fsReadOutput struct {
	Path       string `json:"path"`
	SizeBytes  int64  `json:"size_bytes"`
	TotalLines int    `json:"total_lines"`
	StartLine  int    `json:"start_line"`
	EndLine    int    `json:"end_line"`
	Truncated  bool   `json:"truncated"`
	Note       string `json:"note,omitempty"`
	// Encoding names a file that is not UTF-8: "UTF-16LE", "UTF-16BE",
	// or "not UTF-8" (its odd bytes shown as \xHH).
	Encoding string `json:"encoding,omitempty"`
}

type fsReadTool struct{ ws *Workspace }

// NewFsRead returns the fs_read tool: text files of the workspace by line
// range.
func NewFsRead(ws *Workspace) tools.Tool { return &fsReadTool{ws: ws} }

// Meta implements Tool.
func (t *fsReadTool) Meta() tools.Meta {
	return tools.Meta{
		Name:             "fs_read",
		Description:      fsReadDescription,
		Schema:           json.RawMessage(fsReadSchema),
		ReadOnly:         true,
		Risk:             tools.RiskLow,
		ReturnsUntrusted: true,
		Idempotent:       true,
		SupportsDryRun:   true,
		Capability:       "fs:read",
		Timeout:          fsToolTimeout,
		Source:           tools.SourceBuiltin,
	}
}

// Execute implements Tool.
func (t *fsReadTool) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	res, err := t.read(ctx, args)
	return fsResult(ctx, res, err)
}

func (t *fsReadTool) read(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	var a fsReadArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, "Send {\"path\": \"...\", \"offset\": 1, \"limit\": 2000}.", "arguments for fs_read are not valid: %v", err)
	}
	if a.Offset == 0 {
		a.Offset = 1
	}
	if a.Limit == 0 {
		a.Limit = fsReadDefaultLimit
	}
	// The body cap bounds the output anyway; this keeps offset+limit from
	// overflowing.
	a.Limit = min(a.Limit, 1<<30)
	if a.Offset < 1 || a.Limit < 1 {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, "offset is the 1-based first line and limit a number of lines; both must be at least 1.", "offset %d and limit %d must be at least 1", a.Offset, a.Limit)
	}
	rel, e := t.ws.Rel(a.Path)
	if e != nil {
		return tools.Result{}, e
	}
	sfi, err := t.ws.root.Stat(rel)
	if err != nil {
		return tools.Result{}, t.ws.osError(rel, err)
	}
	if sfi.IsDir() {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, fmt.Sprintf("Use glob_list with path %q to see what the folder contains.", rel), "%s is a folder, not a file", rel).With("path", rel)
	}
	if !sfi.Mode().IsRegular() {
		return tools.Result{}, tools.Errorf(tools.KindUnsupported, "fs_read reads regular text files only; choose another path.", "%s is %s, not a regular file", rel, tools.FileKind(sfi.Mode())).With("path", rel)
	}
	f, fi, e := fsOpenRegular(t.ws, rel, sfi)
	if e != nil {
		return tools.Result{}, e
	}
	defer f.Close()

	var src io.Reader = fsCtxReader{ctx, f}
	if text, ok := t.ws.buffer(ctx, rel); ok {
		// The editor's copy, unsaved changes included; the checks above
		// held for the file on disk.
		src = strings.NewReader(text)
	}
	r := bufio.NewReaderSize(src, 64<<10)
	head, _ := r.Peek(fsSniffBytes + utf8.UTFMax)
	// Text as grep_search reads it: UTF-16 with a byte order mark is
	// transcoded, other text that is not UTF-8 shows its odd bytes as
	// \xHH; a NUL byte makes a file binary.
	encoding := ""
	if enc := textEncodingOf(head); enc.utf16 != nil {
		encoding = enc.name
		_, _ = r.Discard(enc.bom)
		r = bufio.NewReaderSize(transform.NewReader(r, enc.utf16.NewDecoder()), 64<<10)
		head, _ = r.Peek(fsSniffBytes + utf8.UTFMax)
	}
	if bytes.IndexByte(tools.CutUTF8(head, fsSniffBytes), 0) >= 0 {
		return tools.Result{}, tools.Errorf(tools.KindUnsupported, "This looks like a binary file (it holds NUL bytes). If its contents matter, ask the user, or inspect it with shell_run (for example `file`, `head -c` or `xxd`).", "%s is not a text file", rel).
			With("path", rel).With("size_bytes", fi.Size())
	}
	if encoding == "" && !utf8.Valid(tools.CutUTF8(head, fsSniffBytes)) {
		encoding = "not UTF-8"
	}
	out, body, err := fsReadLines(r, a.Offset, a.Limit)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		var te *tools.Error
		if errors.As(err, &te) {
			return tools.Result{}, te.With("path", rel)
		}
		return tools.Result{}, t.ws.osError(rel, err)
	}
	out.Path, out.SizeBytes, out.Encoding = rel, fi.Size(), encoding
	summary := fmt.Sprintf("Read %s (lines %d-%d of %d)", rel, out.StartLine, out.EndLine, out.TotalLines)
	if out.TotalLines == 0 {
		summary = fmt.Sprintf("Read %s (empty)", rel)
	}
	if encoding != "" {
		summary += ", " + encoding
		note := "the file is " + encoding + ", shown transcoded"
		if encoding == "not UTF-8" {
			note = "the file is not UTF-8: its bytes that are not show as \\xHH"
		}
		note += "; fs_edit cannot change it (convert it with iconv through shell_run first)"
		out.Note = strings.Join(slices.DeleteFunc([]string{note, out.Note}, func(s string) bool { return s == "" }), "; ")
	}
	return tools.Result{
		Output:     out,
		Body:       body,
		Source:     t.ws.readSource(rel),
		Summary:    summary,
		Capability: "fs:read:" + rel,
	}, nil
}

// fsReadLines reads lines offset..offset+limit-1 of r into the body, within
// fsReadMaxBody (whole lines) and cutting lines longer than fsReadMaxLine,
// and counts every line of r. It never holds more than one cut line.
func fsReadLines(r *bufio.Reader, offset, limit int) (fsReadOutput, string, error) {
	var (
		out      fsReadOutput
		body     strings.Builder
		total    int
		cutLines int
		capped   bool // the body cap stopped the range early
		line     []byte
		lineLen  int
	)
	last := offset + limit - 1
	for {
		chunk, err := r.ReadSlice('\n')
		if len(chunk) > 0 {
			inRange := total+1 >= offset && total+1 <= last && !capped
			if inRange && len(line) < fsReadMaxLine+utf8.UTFMax {
				line = append(line, chunk[:min(len(chunk), fsReadMaxLine+utf8.UTFMax-len(line))]...)
			}
			lineLen += len(chunk)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && err != io.EOF {
			return out, "", err
		}
		if lineLen > 0 {
			total++
			if total >= offset && total <= last && !capped {
				n := lineLen
				if err == nil {
					n-- // the newline is not part of the text
				}
				text, cut := fsReadCutLine(line, n, err == nil)
				if body.Len()+len(text) > fsReadMaxBody && out.EndLine > 0 {
					capped = true
				} else {
					if cut {
						cutLines++
					}
					body.WriteString(text)
					if out.StartLine == 0 {
						out.StartLine = total
					}
					out.EndLine = total
				}
			}
		}
		line, lineLen = line[:0], 0
		if err == io.EOF {
			break
		}
	}
	out.TotalLines = total
	if total == 0 {
		out.Note = "the file is empty"
		return out, "", nil
	}
	if out.StartLine == 0 {
		return out, "", tools.Errorf(tools.KindInvalidArgs, fmt.Sprintf("Call again with an offset between 1 and %d.", total), "offset %d is past the end of the file (%d lines)", offset, total).
			With("total_lines", total)
	}
	var notes []string
	if out.EndLine < total {
		out.Truncated = true
		why := ""
		if capped {
			why = fmt.Sprintf(" (output capped at %s)", tools.HumanSize(fsReadMaxBody))
		}
		notes = append(notes, fmt.Sprintf("shown lines %d-%d of %d%s; read on with offset=%d", out.StartLine, out.EndLine, total, why, out.EndLine+1))
	}
	if cutLines > 0 {
		out.Truncated = true
		notes = append(notes, fmt.Sprintf("%s cut at %d bytes", fsCount(cutLines, "long line"), fsReadMaxLine))
	}
	out.Note = strings.Join(notes, "; ")
	return out, body.String(), nil
}

// fsReadCutLine renders one line for the body: invalid UTF-8 replaced, and
// a line longer than fsReadMaxLine cut on a character boundary with a
// marker that gives its full length.
// n is the length of the line without its newline; line holds the whole
// line when n is within the limit.
func fsReadCutLine(line []byte, n int, endsNL bool) (string, bool) {
	if n <= fsReadMaxLine {
		return fsEscapeInvalid(line), false
	}
	nl := ""
	if endsNL {
		nl = "\n"
	}
	text, shown := tools.CutText(line, fsReadMaxLine)
	return text + fmt.Sprintf(" … [line cut: %d of %d bytes shown]", shown, n) + nl, true
}

// fsEscapeInvalid is b as text, each byte that is not part of valid
// UTF-8 written as \xHH, so a Latin-1 "café" reads "caf\xe9".
func fsEscapeInvalid(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 {
			fmt.Fprintf(&sb, "\\x%02x", b[0])
			b = b[1:]
			continue
		}
		sb.Write(b[:n])
		b = b[n:]
	}
	return sb.String()
}
