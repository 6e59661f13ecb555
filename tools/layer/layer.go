// Package layer gives an edit agent a private copy-on-write layer of the
// workspace: its file tools and shell commands change only the layer, and
// what it changed is merged three-way against the workspace as it is when
// the agent is done, applied as one journaled change.
//
// On Linux the layer is an overlay mount made in a user and mount
// namespace (the shell preview's): a holder process keeps it mounted, the
// file tools reach it through /proc/PID/root, and each shell command
// joins the holder's mount namespace, so there is one mount per layer.
// Commands run without network, under the same Landlock rules, protected
// and hidden paths as a preview; the build caches are what the sandbox
// makes of them (layered or read-only), shared with every other command.
// Elsewhere, and in a build without cgo, Open fails, saying why.
//
// The merge's base is kept per path when the layer first changes it: just
// before a file tool writes it, and right after a command that copied it
// up. The workspace itself is read live through the layer until then, so
// the agent sees the user's edits to files it has not changed.
package layer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"myclaw/tools"
	"myclaw/tools/builtin"
)

// joiner is the sandbox's side of a held layer (sandbox.Sandbox).
type joiner interface {
	CanHoldLayer() error
	ConfineInLayer(cmd *exec.Cmd, holder int) (finish func(stderr string) (confinement, note string), err error)
}

// Layer is an edit agent's private copy-on-write view of the workspace.
type Layer struct {
	ws      *builtin.Workspace
	sb      joiner
	scratch string
	upper   string
	view    *builtin.Workspace
	holder  *exec.Cmd
	stdin   io.Closer
	finish  func(string) (string, string)
	undo    *builtin.ShellUndo

	mu        sync.Mutex
	discarded bool
	// base is each changed path's workspace version when the layer first
	// changed it (the three-way merge's base).
	base map[string]version
	// running counts the shell commands running in the layer.
	running int
}

// Open makes a layer over ws in a fresh folder under scratchDir ("" for
// the system's temp folder). sb must be the sandbox that runs previews
// (package sandbox on Linux). It fails, saying why, where no layer can be
// made: not Linux, no user namespaces or overlay mounts, no sandbox.
func Open(ws *builtin.Workspace, sb builtin.PreviewSandbox, scratchDir string) (*Layer, error) {
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("an edit agent needs its own copy-on-write layer of the workspace, which myclaw makes only on Linux (an overlay mount); on %s edit agents are refused rather than sharing the tree", runtime.GOOS)
	}
	j, ok := sb.(joiner)
	if sb == nil || !ok {
		return nil, errors.New("an edit agent needs the sandbox to hold its copy-on-write layer, and there is none here")
	}
	if err := j.CanHoldLayer(); err != nil {
		return nil, fmt.Errorf("an edit agent needs its own copy-on-write layer of the workspace: %w", err)
	}
	scratch, err := os.MkdirTemp(scratchDir, "myclaw-layer-")
	if err != nil {
		return nil, fmt.Errorf("make the edit layer: %w", err)
	}
	l := &Layer{ws: ws, sb: j, scratch: scratch, upper: filepath.Join(scratch, "upper"), base: map[string]version{}}
	work := filepath.Join(scratch, "work")
	for _, d := range []string{l.upper, work} {
		if err := os.Mkdir(d, 0o700); err != nil {
			builtin.RemoveScratch(scratch)
			return nil, fmt.Errorf("make the edit layer: %w", err)
		}
	}
	if err := l.start(sb, work); err != nil {
		l.Discard()
		return nil, err
	}
	return l, nil
}

// start runs the holder: a confined process over the layer that says
// when the layer is mounted, then waits for its input to end. The view is
// the layer's workspace folder as the holder sees it.
func (l *Layer) start(sb builtin.PreviewSandbox, work string) error {
	cmd := exec.Command("/bin/sh", "-c", "echo ready; exec cat >/dev/null")
	cmd.Dir = l.ws.Dir()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	finish, err := sb.ConfinePreview(cmd, l.upper, work)
	if err != nil {
		return fmt.Errorf("the edit layer could not be made: %w", err)
	}
	l.finish = finish
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("the edit layer could not be made: %w", err)
	}
	l.holder, l.stdin = cmd, in
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "ready\n" {
		in.Close()
		_ = cmd.Wait()
		l.holder = nil
		return fmt.Errorf("the edit layer could not be made: %s", strings.TrimSpace(stderr.String()))
	}
	root, err := openView(cmd.Process.Pid, l.ws.Dir())
	if err != nil {
		return fmt.Errorf("the edit layer could not be opened: %w", err)
	}
	l.view = l.ws.View(root, l.beforeWrite)
	return nil
}

// Workspace is the view the agent's file tools use: the workspace as the
// layer has it; what they write lands in the layer only.
func (l *Layer) Workspace() *builtin.Workspace { return l.view }

// UseUndo gives the layer the journal's undo of shell changes: an applied
// merge is recorded in its format (and reverted by u.Revert). Without it
// Apply refuses, since the merge could not be undone.
func (l *Layer) UseUndo(u *builtin.ShellUndo) { l.undo = u }

// Sandbox confines the agent's shell commands in the layer.
func (l *Layer) Sandbox() tools.Sandbox { return layerSandbox{l} }

type layerSandbox struct{ l *Layer }

// Confine implements tools.Sandbox: cmd runs without network in the
// holder's mount namespace; once it ended, the workspace's version of
// each path it copied up is kept as the merge's base.
func (s layerSandbox) Confine(cmd *exec.Cmd, network bool) (func(string) (string, string), error) {
	l := s.l
	if network {
		return nil, errors.New("an edit agent's commands run without network (its layer is private)")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.discarded {
		return nil, errors.New("the edit layer was discarded")
	}
	finish, err := l.sb.ConfineInLayer(cmd, l.holder.Process.Pid)
	if err != nil {
		return nil, err
	}
	l.running++
	once := sync.Once{}
	return func(stderr string) (string, string) {
		conf, note := finish(stderr)
		once.Do(func() {
			l.mu.Lock()
			l.running--
			l.mu.Unlock()
			if err := l.captureUpper(); err != nil {
				note = strings.TrimPrefix(note+". ", ". ") + "the workspace's version of what it changed could not be kept for the merge: " + err.Error()
			}
			conf = "edit layer: " + conf
		})
		return conf, note
	}, nil
}

// Discard drops the layer: the holder ends, the view closes and the
// scratch folder goes. Nothing of it reaches the workspace. Idempotent.
func (l *Layer) Discard() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.discarded {
		return
	}
	l.discarded = true
	if l.view != nil {
		_ = l.view.CloseView()
	}
	if l.holder != nil {
		l.stdin.Close()
		_ = l.holder.Process.Kill()
		_ = l.holder.Wait()
	}
	if l.finish != nil {
		l.finish("")
	}
	builtin.RemoveScratch(l.scratch)
}
