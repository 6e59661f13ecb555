package acp

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"myclaw/tools"
)

// TestPromptResources sends a prompt with a link to a workspace file and
// an embedded resource: the model reads the linked file as an @mention
// and the editor's copy of the other.
func TestPromptResources(t *testing.T) {
	model := newFakeModel(t, nil)
	_, _, conn := connect(t, model, acpsdk.ClientCapabilities{})
	ctx := context.Background()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "linked.txt"), []byte("linked-content-on-disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sess, err := conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	embedded := acpsdk.ResourceBlock(acpsdk.EmbeddedResourceResource{TextResourceContents: &acpsdk.TextResourceContents{
		Uri: "file://" + filepath.ToSlash(filepath.Join(ws, "open.go")), Text: "unsaved-buffer-text\n"}})
	_, err = conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{
		acpsdk.TextBlock("look at these "),
		acpsdk.ResourceLinkBlock("linked.txt", "file://"+filepath.ToSlash(filepath.Join(ws, "linked.txt"))),
		embedded,
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !model.saw("linked-content-on-disk", "@linked.txt", "Content of open.go", "unsaved-buffer-text") {
		t.Error("the model was not sent the linked file and the embedded resource")
	}
	_, err = conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.ImageBlock("AAAA", "image/png")}})
	if err == nil {
		t.Error("an image prompt was accepted; want an error naming what is unsupported")
	}
}

// TestApplyUnified rebuilds a file from the dry run's diff, and gives up
// on a diff that does not apply.
func TestApplyUnified(t *testing.T) {
	cases := []struct{ name, old, new string }{
		{"change", "a\nb\nc\n", "a\nB\nc\n"},
		{"new file", "", "x\ny\n"},
		{"no newline at end", "a\nb", "a\nc"},
		{"add newline at end", "a\nb", "a\nb\n"},
		{"far apart", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := tools.Diff("a/f", "b/f", []byte(c.old), []byte(c.new)).Text()
			got, ok := applyUnified(c.old, d)
			if !ok || got != c.new {
				t.Errorf("applyUnified(%q, diff) = %q, %v; want %q\n%s", c.old, got, ok, c.new, d)
			}
		})
	}
	d := tools.Diff("a/f", "b/f", []byte("a\nb\n"), []byte("a\nc\n")).Text()
	if _, ok := applyUnified("something else\n", d); ok {
		t.Error("a diff of another text applied")
	}
}

// TestReadsEditorBuffers: with fs/read_text_file offered, fs_read reads
// the editor's copy of a file, unsaved changes included.
func TestReadsEditorBuffers(t *testing.T) {
	model := newFakeModel(t, map[string][2]string{"read it": {"fs_read", `{"path":"notes.txt"}`}})
	_, client, conn := connect(t, model, acpsdk.ClientCapabilities{Fs: acpsdk.FileSystemCapabilities{ReadTextFile: true}})
	ctx := context.Background()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("saved-on-disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	client.mu.Lock()
	client.buffers = map[string]string{filepath.Join(ws, "notes.txt"): "unsaved-in-editor\n"}
	client.mu.Unlock()
	sess, err := conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("read it")}}); err != nil {
		t.Fatal(err)
	}
	if !model.saw("unsaved-in-editor") || model.saw("saved-on-disk") {
		t.Error("fs_read did not read the editor's buffer instead of the file on disk")
	}
}
