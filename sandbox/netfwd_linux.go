//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// netfwdArg is argv[1] of myclaw started as a confined command's proxy
// forwarder, inside the command's network namespace.
const netfwdArg = "__myclaw-netfwd__"

// forward takes each connection to the listener on fd 3 (127.0.0.1:
// ProxyPort in the command's namespace) to the proxy's socket outside.
// It ends when parent (the command) does. Not by a parent-death signal:
// Landlock's signal scope keeps the confined command from sending one out
// of its domain. It waits on a pidfd instead.
func forward(sock, parent string) error {
	ppid, err := strconv.Atoi(parent)
	if err != nil {
		return err
	}
	token := os.Getenv(proxyTokenEnv)
	pidfd, err := unix.PidfdOpen(ppid, 0)
	if err != nil {
		return fmt.Errorf("watch the command: %w", err)
	}
	if os.Getppid() != ppid {
		return errors.New("the command is gone")
	}
	go func() {
		fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
		for {
			if _, err := unix.Poll(fds, -1); err != unix.EINTR {
				os.Exit(0)
			}
		}
	}()
	ln, err := net.FileListener(os.NewFile(3, "proxy listener"))
	if err != nil {
		return err
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		go func() {
			defer c.Close()
			up, err := net.Dial("unix", sock)
			if err != nil {
				return
			}
			defer up.Close()
			if _, err := io.WriteString(up, token+"\n"); err != nil {
				return
			}
			done := make(chan struct{}, 2)
			go func() { _, _ = io.Copy(up, c); closeWrite(up); done <- struct{}{} }()
			go func() { _, _ = io.Copy(c, up); closeWrite(c); done <- struct{}{} }()
			<-done
			<-done
		}()
	}
}

// startForwarder is sb_proxy of the C launcher, for the launcher without
// cgo: it runs in the command's new namespaces, before Landlock.
func startForwarder(sock string) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("bring up the loopback: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("read the loopback's flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring up the loopback: %w", err)
	}
	l, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("listen for the proxy: %w", err)
	}
	defer unix.Close(l)
	if err := unix.Bind(l, &unix.SockaddrInet4{Port: ProxyPort, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return fmt.Errorf("listen for the proxy: %w", err)
	}
	if err := unix.Listen(l, 64); err != nil {
		return fmt.Errorf("listen for the proxy: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	n := null.Fd()
	_, err = syscall.ForkExec(self, []string{"myclaw", netfwdArg, sock, strconv.Itoa(os.Getpid())}, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{n, n, n, uintptr(l)},
	})
	if err != nil {
		return fmt.Errorf("start the proxy forwarder: %w", err)
	}
	return nil
}

// ConfineProxied is Confine without network, where the command may still
// reach hosts one at a time through myclaw's proxy: HTTP clients find it
// in HTTP_PROXY and HTTPS_PROXY, nothing else leaves the namespace, and
// gate decides each host the first time the command asks for it. The
// result's note names the hosts reached and refused.
func (s *Sandbox) ConfineProxied(cmd *exec.Cmd, gate HostGate) (func(stderr string) (string, string), error) {
	if !s.Active() {
		return nil, fmt.Errorf("the sandbox is not active: %s", s.Status().Why)
	}
	p, err := startProxy(gate)
	if err != nil {
		return nil, err
	}
	c, err := s.confineSpec(cmd, spec{Proxy: p.socket()})
	if err != nil {
		p.close()
		return nil, err
	}
	cmd.Env = append(withProxyEnv(cmd.Env), proxyTokenEnv+"="+p.token)
	c.proxied = true
	return func(stderr string) (string, string) {
		reached, refused := p.close()
		line, note := c.finish(stderr)
		if n := proxyNote(reached, refused); n != "" {
			note = joinNotes(n, note)
		}
		return line, note
	}, nil
}

func joinNotes(a, b string) string {
	if b == "" {
		return a
	}
	return a + ". " + b
}
