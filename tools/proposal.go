package tools

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Bounds of a proposed plan, shared by plan_submit's schema and the check
// of a plan the person edited.
const (
	ProposalMaxSteps     = 30
	ProposalMaxFiles     = 30
	ProposalMaxTitle     = 200
	ProposalMaxRationale = 2000
	ProposalMaxPath      = 300
)

// PlanStep is one step of a proposed plan: what it does and the files it
// expects to touch (workspace-relative paths, directories or globs).
type PlanStep struct {
	Title string   `json:"title"`
	Files []string `json:"files"`
}

// Proposal is a plan the model submitted in plan mode, for the person to
// accept, edit or reject.
type Proposal struct {
	Rationale string     `json:"rationale"`
	Steps     []PlanStep `json:"steps"`
}

// Validate checks p and puts its paths in canonical form (slashes, no
// "./"); the error names the step and the rule broken.
func (p *Proposal) Validate() error {
	p.Rationale = strings.TrimSpace(p.Rationale)
	switch {
	case p.Rationale == "":
		return errors.New("the rationale is empty: say in a sentence or two why this plan")
	case utf8.RuneCountInString(p.Rationale) > ProposalMaxRationale:
		return fmt.Errorf("the rationale has more than %d characters", ProposalMaxRationale)
	case len(p.Steps) == 0:
		return errors.New("the plan has no steps")
	case len(p.Steps) > ProposalMaxSteps:
		return fmt.Errorf("the plan has %d steps; at most %d", len(p.Steps), ProposalMaxSteps)
	}
	for i := range p.Steps {
		s := &p.Steps[i]
		s.Title = strings.TrimSpace(s.Title)
		switch {
		case s.Title == "":
			return fmt.Errorf("step %d has no title", i+1)
		case strings.ContainsAny(s.Title, "\n\r"):
			return fmt.Errorf("step %d's title is more than one line", i+1)
		case utf8.RuneCountInString(s.Title) > ProposalMaxTitle:
			return fmt.Errorf("step %d's title has more than %d characters", i+1, ProposalMaxTitle)
		case len(s.Files) > ProposalMaxFiles:
			return fmt.Errorf("step %d names %d files; at most %d", i+1, len(s.Files), ProposalMaxFiles)
		}
		for j, f := range s.Files {
			c, err := planPath(f)
			if err != nil {
				return fmt.Errorf("step %d, file %q: %w", i+1, f, err)
			}
			s.Files[j] = c
		}
	}
	return nil
}

// planPath is f as a clean workspace-relative path, or why it is not one.
func planPath(f string) (string, error) {
	f = strings.TrimSpace(strings.ReplaceAll(f, `\`, "/"))
	switch {
	case f == "":
		return "", errors.New("the path is empty")
	case len(f) > ProposalMaxPath:
		return "", fmt.Errorf("the path is longer than %d bytes", ProposalMaxPath)
	case strings.HasPrefix(f, "/") || strings.HasPrefix(f, "~") || strings.ContainsRune(f, ':'):
		return "", errors.New("name paths relative to the workspace")
	case !IsInertLine(f):
		return "", errors.New("the path holds control characters")
	}
	dir := strings.HasSuffix(f, "/")
	c := path.Clean(f)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", errors.New("the path leaves the workspace")
	}
	if dir && c != "." {
		c += "/"
	}
	return c, nil
}

// IsInertLine reports whether s is one line without control characters.
func IsInertLine(s string) bool {
	for _, r := range s {
		if r < ' ' || r >= 0x7f && r <= 0x9f || r == utf8.RuneError {
			return false
		}
	}
	return true
}

// Items is the plan as a checklist (todo_write's), every step pending.
func (p Proposal) Items() []PlanItem {
	out := make([]PlanItem, len(p.Steps))
	for i, s := range p.Steps {
		out[i] = PlanItem{Text: ClipOneLine(s.Title, ProposalMaxTitle), Status: PlanPending}
	}
	return out
}

// Files is every file the plan names, in order, once each.
func (p Proposal) Files() []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range p.Steps {
		for _, f := range s.Files {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// Covers reports whether a step names file (workspace-relative): the file
// itself, a directory holding it ("dir/" or "dir") or a glob matching it.
func (p Proposal) Covers(file string) bool {
	file = path.Clean(strings.ReplaceAll(file, `\`, "/"))
	for _, f := range p.Files() {
		f = strings.TrimSuffix(f, "/")
		if f == "." || f == file || strings.HasPrefix(file, f+"/") {
			return true
		}
		if ok, _ := path.Match(f, file); ok {
			return true
		}
	}
	return false
}

// Text is the plan as people read and edit it: the rationale, then the
// numbered steps, each with its files on an indented "files:" line.
// ParseProposal reads it back.
func (p Proposal) Text() string {
	var b strings.Builder
	b.WriteString(p.Rationale)
	b.WriteString("\n\n")
	for i, s := range p.Steps {
		fmt.Fprintf(&b, "%d. %s\n", i+1, s.Title)
		if len(s.Files) > 0 {
			fmt.Fprintf(&b, "   files: %s\n", strings.Join(s.Files, ", "))
		}
	}
	return b.String()
}

var stepLine = regexp.MustCompile(`^(\d+)[.)]\s+(.*)$`)

// ParseProposal reads a plan written as Text writes it; lines starting
// with "#" are comments. The error names the line that is wrong.
func ParseProposal(text string) (Proposal, error) {
	var p Proposal
	var rationale []string
	for n, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") {
			continue
		}
		if m := stepLine.FindStringSubmatch(trimmed); m != nil && line == trimmed {
			if want := strconv.Itoa(len(p.Steps) + 1); m[1] != want {
				return p, fmt.Errorf("line %d: step %s comes where step %s should", n+1, m[1], want)
			}
			p.Steps = append(p.Steps, PlanStep{Title: m[2]})
			continue
		}
		if len(p.Steps) == 0 {
			rationale = append(rationale, line)
			continue
		}
		if trimmed == "" {
			continue
		}
		s := &p.Steps[len(p.Steps)-1]
		files, ok := strings.CutPrefix(trimmed, "files:")
		if !ok {
			return p, fmt.Errorf("line %d: under a step only a \"files:\" line may follow, got %q", n+1, ClipOneLine(trimmed, 60))
		}
		for f := range strings.SplitSeq(files, ",") {
			if f = strings.TrimSpace(f); f != "" {
				s.Files = append(s.Files, f)
			}
		}
	}
	p.Rationale = strings.TrimSpace(strings.Join(rationale, "\n"))
	return p, p.Validate()
}
