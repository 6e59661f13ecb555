package ui

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// syncBuffer is a bytes.Buffer safe for the program's writer goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Run draws to its output, logs to its file (creating the directory) and
// returns nil when the user quits with ctrl+c twice.
func TestRunQuitsAndLogs(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "state", "tui.log")
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), newFake(), Options{
			Workspace: "/work/project", LogPath: logPath,
			Input: strings.NewReader("\x03\x03"), Output: out,
		})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("got %v; want nil after ctrl+c twice", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Run did not return after ctrl+c twice")
	}
	if s := ansi.Strip(out.String()); !strings.Contains(s, "test-model") {
		t.Errorf("got output without the model in the status line:\n%q", s)
	}
	if !strings.Contains(out.String(), "\x1b[?1049h") {
		t.Errorf("got no alternate screen in the output")
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatalf("got no log file: %v", err)
	}
	if !strings.Contains(string(b), "tui started") || !strings.Contains(string(b), "tui stopped") {
		t.Errorf("got log %q; want start and stop", b)
	}
}

// A cancelled context ends Run with the context's error.
func TestRunEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	// An io.Pipe, not an *os.File: Bubble Tea's epoll reader races with its
	// own shutdown on files, which -race reports.
	pr, pw := io.Pipe()
	defer pw.Close()
	done := make(chan error, 1)
	go func() { done <- Run(ctx, newFake(), Options{Input: pr, Output: &syncBuffer{}}) }()
	cancel()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "context canceled") {
			t.Errorf("got %v; want context.Canceled", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Run did not return after its context was cancelled")
	}
}

func TestOpenLog(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		wantErr string
	}{
		{"no path discards", "", ""},
		{"creates the directory", filepath.Join(dir, "a", "b", "tui.log"), ""},
		{"directory that is a file", filepath.Join(blocker, "tui.log"), "create log directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log, closeLog, err := openLog(tt.path)
			defer closeLog()
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("got error %v; want %q", err, tt.wantErr)
			}
			log.Info("hello")
			if tt.path != "" && err == nil {
				if b, _ := os.ReadFile(tt.path); !strings.Contains(string(b), "hello") {
					t.Errorf("got log %q; want the line written", b)
				}
			}
		})
	}
}
