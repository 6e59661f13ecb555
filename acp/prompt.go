package acp

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"
)

// promptText turns a prompt's content blocks into the message myclaw
// sends: text as is; an embedded resource (the editor's own copy of a
// file, unsaved changes included) quoted under its name; a link to a file
// as a path to attach (read like @path, confined to the workspace, so
// returned apart); a link to anything else as a Markdown link.
func (ss *session) promptText(blocks []acpsdk.ContentBlock) (string, []string, error) {
	var b strings.Builder
	var links []string
	sep := func() {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteString("\n")
		}
	}
	for i, c := range blocks {
		switch {
		case c.Text != nil:
			b.WriteString(c.Text.Text)
		case c.ResourceLink != nil:
			l := c.ResourceLink
			if p, ok := ss.workspacePath(l.Uri); ok {
				links = append(links, p)
				fmt.Fprintf(&b, "@%s", p)
				continue
			}
			fmt.Fprintf(&b, "[%s](%s)", l.Name, l.Uri)
		case c.Resource != nil:
			r := c.Resource.Resource
			if r.TextResourceContents == nil {
				return "", nil, acpsdk.NewInvalidParams(map[string]any{"prompt": fmt.Sprintf("block %d: only text resources can be sent to myclaw", i+1)})
			}
			name := r.TextResourceContents.Uri
			if p, ok := ss.workspacePath(name); ok {
				name = p
			}
			sep()
			fence := "```"
			for strings.Contains(r.TextResourceContents.Text, fence) {
				fence += "`"
			}
			fmt.Fprintf(&b, "Content of %s, as open in my editor:\n%s\n%s\n%s\n", name, fence, strings.TrimSuffix(r.TextResourceContents.Text, "\n"), fence)
		default:
			return "", nil, acpsdk.NewInvalidParams(map[string]any{"prompt": fmt.Sprintf("block %d: images and audio are not supported", i+1)})
		}
	}
	if strings.TrimSpace(b.String()) == "" {
		return "", nil, acpsdk.NewInvalidParams(map[string]any{"prompt": "the prompt is empty"})
	}
	return b.String(), links, nil
}

// workspacePath is the workspace-relative path of a file: URI inside the
// workspace.
func (ss *session) workspacePath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	p := u.Path
	if len(p) > 2 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // file:///C:/x on Windows
	}
	rel, err := filepath.Rel(ss.es.Workspace(), filepath.FromSlash(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}
