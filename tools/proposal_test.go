package tools

import (
	"strings"
	"testing"
)

func TestProposalTextRoundTrip(t *testing.T) {
	p := Proposal{Rationale: "Why:\nthe parser is off by one.", Steps: []PlanStep{
		{Title: "Fix the parser", Files: []string{"parse/parse.go", "./parse/parse_test.go"}},
		{Title: "Document it", Files: []string{`docs\`}},
		{Title: "Run the tests"},
	}}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if p.Steps[0].Files[1] != "parse/parse_test.go" || p.Steps[1].Files[0] != "docs/" {
		t.Errorf("paths not made canonical: %+v", p.Steps)
	}
	got, err := ParseProposal("# a comment\n" + p.Text())
	if err != nil {
		t.Fatal(err)
	}
	if got.Text() != p.Text() {
		t.Errorf("round trip:\n%s\nwant\n%s", got.Text(), p.Text())
	}
}

func TestProposalErrorsNameWhatIsWrong(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"why\n\n1. a\n3. b\n", "line 4: step 3 comes where step 2 should"},
		{"why\n\n1. a\n   touches: x\n", `line 4: under a step only a "files:" line may follow`},
		{"why\n", "the plan has no steps"},
		{"1. a\n", "the rationale is empty"},
		{"why\n1. a\n   files: ../x\n", `step 1, file "../x": the path leaves the workspace`},
		{"why\n1. a\n   files: /etc/passwd\n", "name paths relative to the workspace"},
	} {
		_, err := ParseProposal(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseProposal(%q) = %v; want %q", tc.text, err, tc.want)
		}
	}
}

func TestProposalCovers(t *testing.T) {
	p := Proposal{Rationale: "r", Steps: []PlanStep{{Title: "x", Files: []string{"a.go", "docs/", "cmd", "ui/*.go"}}}}
	for file, want := range map[string]bool{
		"a.go": true, "./a.go": true, "docs/x/y.md": true, "cmd/tool/main.go": true, "ui/plan.go": true,
		"b.go": false, "ui/sub/plan.go": false, "docsy.md": false, "cmdx": false,
	} {
		if got := p.Covers(file); got != want {
			t.Errorf("Covers(%q) = %v; want %v", file, got, want)
		}
	}
}
