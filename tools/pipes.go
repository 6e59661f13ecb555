package tools

import (
	"os"
	"os/exec"
	"syscall"
)

// Piped are the parent's ends of a child's standard streams.
type Piped struct {
	Stdin          *os.File
	Stdout, Stderr *os.File
}

// StartPiped starts cmd in a process group of its own (so that the whole
// group can be killed) with its three standard streams on pipes, and
// returns the parent's ends. Unlike exec.Cmd's *Pipe methods, Wait does not
// close them: the caller reads to EOF at its own pace, which arrives once
// every process holding the child's ends has exited.
func StartPiped(cmd *exec.Cmd) (Piped, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	var files []*os.File
	fail := func(err error) (Piped, error) {
		for _, f := range files {
			f.Close()
		}
		return Piped{}, err
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return fail(err)
	}
	outR, outW, err := pipe()
	if err != nil {
		return fail(err)
	}
	errR, errW, err := pipe()
	if err != nil {
		return fail(err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	// The child holds its own copies now; ours must go so that EOF arrives
	// when the child's do.
	inR.Close()
	outW.Close()
	errW.Close()
	return Piped{Stdin: inW, Stdout: outR, Stderr: errR}, nil
}
