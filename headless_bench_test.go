package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchTokens is the answer's length: one short headless turn.
const benchTokens = 368

// BenchmarkHeadlessTurn times a whole `myclaw -p` process answering one
// 368-token turn from a local server that streams it at once, so what is
// left is the fixed cost: start-up, the sandbox's verdict, the window
// probes, the session, the request. version-only is the floor: the
// process with its package inits and nothing else; it also reports what
// those inits allocate (init-KB, init-allocs), a figure the machine's load
// does not move. MYCLAW_BIN names the binary to time;
// without it the benchmark builds one. Every sub-benchmark keeps one home,
// as a user's repeated runs do (the first run, not timed, makes the
// sandbox's cached verdict).
//
//	go build -o /tmp/myclaw . && MYCLAW_BIN=/tmp/myclaw go test -run XXX -bench HeadlessTurn -benchtime 20x .
func BenchmarkHeadlessTurn(b *testing.B) {
	bin := benchBinary(b)
	srv := httptest.NewServer(http.HandlerFunc(serveBenchTurn))
	b.Cleanup(srv.Close)
	for _, bc := range []struct {
		name string
		args []string
	}{
		{"sandboxed", []string{"-p", "hello", "--model", "bench-model"}},
		{"sandbox-off", []string{"-p", "hello", "--model", "bench-model", "--sandbox", "off"}},
		{"version-only", []string{"--version"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			home := b.TempDir()
			ws := filepath.Join(home, "ws")
			if err := os.MkdirAll(ws, 0o755); err != nil {
				b.Fatal(err)
			}
			env := []string{
				"HOME=" + home, "PATH=" + os.Getenv("PATH"),
				"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_STATE_HOME=" + filepath.Join(home, ".state"),
				"XDG_DATA_HOME=" + filepath.Join(home, ".data"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
				"OPENAI_BASE_URL=" + srv.URL + "/v1", "OPENAI_API_KEY=bench",
			}
			var cpu time.Duration
			run := func() {
				cmd := exec.Command(bin, bc.args...)
				cmd.Env, cmd.Dir = env, ws
				out, err := cmd.CombinedOutput()
				if err != nil {
					b.Fatalf("%s %v: %v\n%s", bin, bc.args, err, out)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
				if bc.name != "version-only" && !strings.Contains(string(out), "tok367") {
					b.Fatalf("the answer did not arrive whole:\n%s", out)
				}
			}
			// Twice untimed: the first run makes ~/.cache, so the second
			// one's verdict is the one later runs find.
			run()
			run()
			b.ResetTimer()
			cpu = 0
			start := time.Now()
			for b.Loop() {
				run()
			}
			// CPU is the steadier figure on a loaded machine, where the
			// wall time is mostly waiting for a core.
			b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/turn")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/turn")
			if bc.name == "version-only" {
				// What the package inits allocate does not depend on the
				// load at all: the floor's figure to compare across changes.
				kb, allocs := initAllocs(b, bin)
				b.ReportMetric(kb, "init-KB")
				b.ReportMetric(allocs, "init-allocs")
			}
		})
	}
}

// initAllocs sums what `bin --version`'s package inits allocate, as
// GODEBUG=inittrace=1 reports it.
func initAllocs(b *testing.B, bin string) (kb, allocs float64) {
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("%s --version: %v\n%s", bin, err, out)
	}
	for _, m := range initTraceRE.FindAllStringSubmatch(string(out), -1) {
		by, _ := strconv.ParseFloat(m[1], 64)
		n, _ := strconv.ParseFloat(m[2], 64)
		kb += by / 1024
		allocs += n
	}
	if allocs == 0 {
		b.Fatalf("no inittrace lines in:\n%s", out)
	}
	return kb, allocs
}

var initTraceRE = regexp.MustCompile(`(?m)^init \S+ @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

func benchBinary(b *testing.B) string {
	if p := os.Getenv("MYCLAW_BIN"); p != "" {
		return p
	}
	p := filepath.Join(b.TempDir(), "myclaw")
	if out, err := exec.Command("go", "build", "-o", p, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return p
}

// serveBenchTurn is an OpenAI-style server without window endpoints that
// streams benchTokens tokens, one a chunk, as fast as it can.
func serveBenchTurn(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		fmt.Fprint(w, `{"object":"list","data":[{"id":"bench-model","object":"model"}]}`)
		return
	case !strings.HasSuffix(r.URL.Path, "/chat/completions"):
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for i := range benchTokens {
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok%d \"}}]}\n\n", i)
	}
	fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
	fmt.Fprint(w, "data: [DONE]\n\n")
}
