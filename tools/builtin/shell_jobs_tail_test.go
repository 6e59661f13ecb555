package builtin

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Tail gives the newest output of a job, whole runes only, and leaves what
// the model has still to read unread.
func TestShellJobsTail(t *testing.T) {
	job := &shellJob{id: "job1", command: "npm run dev", out: &jobOutput{}, ended: make(chan struct{})}
	close(job.ended)
	jobs := &ShellJobs{jobs: []*shellJob{job}}
	job.out.Write([]byte(strings.Repeat("é", 100) + "last line\n"))

	in, text, err := jobs.Tail("job1", 15)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(text, "last line\n") || !utf8.ValidString(text) || len(text) > 15 {
		t.Errorf("tail %q; want at most 15 bytes of whole runes ending with the last line", text)
	}
	if in.UnreadBytes != in.OutputBytes {
		t.Errorf("unread %d of %d bytes after a tail; want the model's reading untouched", in.UnreadBytes, in.OutputBytes)
	}
	if _, _, err := jobs.Tail("job2", 15); err == nil || !strings.Contains(err.Error(), "job1") {
		t.Errorf("tail of an unknown job: %v; want an error naming the jobs there are", err)
	}
}
