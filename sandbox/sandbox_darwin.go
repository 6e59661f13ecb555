//go:build darwin

package sandbox

import (
	"errors"
	"os"
	"os/exec"
)

const sandboxExec = "/usr/bin/sandbox-exec"

// Launch is a no-op on macOS: sandbox-exec is the launcher.
func Launch() {}

func (s *Sandbox) confine(cmd *exec.Cmd, network bool) (*call, error) {
	tmp, err := tempDir(cmd)
	if err != nil {
		return nil, err
	}
	// Seatbelt cannot layer a cache: the caches stay read-only.
	write := []string{s.opts.Workspace, tmp}
	existing, missing, gitDirs := s.protected(write, true)
	profile := seatbeltProfile(write, append(existing, missing...), s.hidden(), network)
	cmd.Args = append([]string{sandboxExec, "-p", profile, cmd.Path}, cmd.Args[1:]...)
	cmd.Path = sandboxExec
	// Seatbelt denies creating the missing protected paths too.
	return &call{tmp: tmp, network: network, ws: s.opts.Workspace, roots: write, gitDirs: gitDirs, tree: &s.tree,
		pinned: pinProtected(gitDirs, existing), hidden: s.hidden()}, nil
}

// confineReadOnly is confine with only the temp dir writable and no
// network.
func (s *Sandbox) confineReadOnly(cmd *exec.Cmd) (*call, error) {
	tmp, err := tempDir(cmd)
	if err != nil {
		return nil, err
	}
	write := []string{tmp}
	profile := seatbeltProfile(write, nil, s.hidden(), false)
	cmd.Args = append([]string{sandboxExec, "-p", profile, cmd.Path}, cmd.Args[1:]...)
	cmd.Path = sandboxExec
	return &call{tmp: tmp, ws: s.opts.Workspace, roots: write, hidden: s.hidden(), readOnly: true}, nil
}

func (s *Sandbox) detect() string {
	if _, err := os.Stat(sandboxExec); err != nil {
		return "sandbox-exec is missing"
	}
	return ""
}

func mechanism() string { return "Seatbelt (sandbox-exec with a generated profile)" }

func gaps() []string {
	return []string{"reads are restricted only for the hidden paths: commands can read every other file you can", "sandbox-exec is deprecated by Apple, though still shipped"}
}

func (s *Sandbox) confineOverlay(*exec.Cmd, string, string) (*call, error) {
	return nil, errors.New("a preview needs an overlay mount, which only Linux has here")
}

func (s *Sandbox) confineJoin(*exec.Cmd, int) (*call, error) { return nil, canJoin() }

func canJoin() error { return errors.New("a held layer needs Linux") }
