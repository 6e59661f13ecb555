package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyTree copies the fixture folder src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// workspace lays the published-format fixtures out in dir/rel of a new
// workspace and opens it.
func workspace(t *testing.T, rel string) *os.Root {
	t.Helper()
	ws := t.TempDir()
	copyTree(t, "testdata/published", filepath.Join(ws, filepath.FromSlash(rel)))
	root, err := os.OpenRoot(ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root
}

// testdata/published holds skills as public skill repositories publish
// them: front matter with license, metadata, compatibility, allowed-tools
// and YAML comments; LICENSE.txt, references/ and scripts/ beside. They
// load as they are.
func TestPublishedSkillsLoadUnchanged(t *testing.T) {
	root := workspace(t, ".claude/skills")
	set := Discover(Options{Root: root, Trusted: true})
	if errs := set.Errors(); len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	all := set.All()
	if len(all) != 3 || all[0].Name != "pdf-forms" || all[1].Name != "release-notes" || all[2].Name != "template-skill" {
		t.Fatalf("skills = %+v", all)
	}
	pdf, rn := all[0], all[1]
	// The repository's template: a YAML comment after the name.
	if tpl, _ := all[2].Body(); all[2].Origin != ".claude/skills/template" || tpl != "# Insert instructions below\n" {
		t.Errorf("template: %+v %q", all[2], tpl)
	}
	if !pdf.Loadable() || !rn.Loadable() {
		t.Fatalf("not loadable: %q %q", pdf.Why, rn.Why)
	}
	if got := strings.Join(pdf.AllowedTools, "|"); got != "Read|Bash(python:*)" {
		t.Errorf("allowed-tools = %q", got)
	}
	if !strings.HasPrefix(pdf.Description, "Fill in PDF forms: read") || rn.Origin != ".claude/skills/release-notes" {
		t.Errorf("description %q origin %q", pdf.Description, rn.Origin)
	}
	body, err := rn.Body()
	if err != nil || !strings.HasPrefix(body, "# Release notes\n") || strings.Contains(body, "license:") {
		t.Fatalf("body = %q, %v", body, err)
	}
	files, more := rn.Files(10)
	if strings.Join(files, ",") != "LICENSE.txt,references/style.md,scripts/check_notes.py" || more {
		t.Errorf("files = %v %v", files, more)
	}
	b, cut, err := rn.ReadFile("references/style.md")
	if err != nil || cut || !strings.Contains(string(b), "Added, Changed") {
		t.Errorf("ReadFile = %q %v %v", b, cut, err)
	}
	for _, bad := range []string{"../release-notes/SKILL.md", "/etc/passwd", "..", ""} {
		if _, _, err := rn.ReadFile(bad); err == nil {
			t.Errorf("ReadFile(%q) read outside the skill's folder", bad)
		}
	}
	sec := set.Section()
	if !strings.Contains(sec, "- release-notes: Drafts release notes") || strings.Contains(sec, "git log") {
		t.Errorf("the prompt must carry names and descriptions only:\n%s", sec)
	}
}

func TestUntrustedSkillsAreListedNotLoaded(t *testing.T) {
	root := workspace(t, ".agents/skills")
	set := Discover(Options{Root: root, Trusted: false})
	all := set.All()
	if len(all) != 3 {
		t.Fatalf("skills = %+v", all)
	}
	for _, sk := range all {
		if sk.Loadable() || !strings.Contains(sk.Why, "not trusted") {
			t.Errorf("%s: loadable=%v why=%q", sk.Name, sk.Loadable(), sk.Why)
		}
	}
	if s := set.Section(); s != "" {
		t.Errorf("an untrusted skill reached the prompt:\n%s", s)
	}
	set.SetTrusted(true)
	if sk, ok := set.Lookup("release-notes"); !ok || !sk.Loadable() {
		t.Errorf("after /trust: %+v %v", sk, ok)
	}
}

func TestUserSkillsShadowProjectSkills(t *testing.T) {
	root := workspace(t, ".myclaw/skills")
	user := t.TempDir()
	copyTree(t, "testdata/published/pdf-forms", filepath.Join(user, "pdf-forms"))
	set := Discover(Options{Root: root, UserDir: user, Trusted: true})
	sk, ok := set.Lookup("pdf-forms")
	if !ok || sk.Project || sk.Origin != filepath.ToSlash(filepath.Join(user, "pdf-forms")) {
		t.Fatalf("Lookup = %+v", sk)
	}
	var shadowed bool
	for _, s := range set.All() {
		if s.Project && s.Name == "pdf-forms" {
			shadowed = strings.Contains(s.Why, "shadowed")
		}
	}
	if !shadowed {
		t.Error("the project's pdf-forms is not marked shadowed")
	}
}

func TestBadSkillsAreReportedOneByOne(t *testing.T) {
	ws := t.TempDir()
	write := func(name, src string) {
		d := filepath.Join(ws, ".myclaw/skills", name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "SKILL.md"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("good", "---\nname: good\ndescription: fine\n---\nbody\n")
	write("nofront", "# just markdown\n")
	write("unclosed", "---\nname: x\ndescription: y\n")
	write("badyaml", "---\nname: [x\ndescription: y\n---\n")
	write("noname", "---\ndescription: y\n---\n")
	write("nodesc", "---\nname: nodesc\n---\n")
	write("spaced", "---\nname: two words\ndescription: y\n---\n")
	write("listname", "---\nname: [a, b]\ndescription: y\n---\n")
	root, _ := os.OpenRoot(ws)
	defer root.Close()
	set := Discover(Options{Root: root, Trusted: true})
	if all := set.All(); len(all) != 1 || all[0].Name != "good" {
		t.Fatalf("skills = %+v", all)
	}
	want := map[string]string{
		"nofront":  "does not start with a front matter",
		"unclosed": "no closing",
		"badyaml":  "not valid YAML",
		"noname":   "has no name",
		"nodesc":   "has no description",
		"spaced":   "has a space",
		"listname": "its name is a []interface {}, not text",
	}
	errs := set.Errors()
	if len(errs) != len(want) {
		t.Fatalf("errors = %v", errs)
	}
	for _, err := range errs {
		ok := false
		for dir, msg := range want {
			if strings.Contains(err.Error(), ".myclaw/skills/"+dir+":") && strings.Contains(err.Error(), msg) {
				ok = true
			}
		}
		if !ok {
			t.Errorf("unexpected error %v", err)
		}
	}
}

func TestParseCRLFAndEmptyBody(t *testing.T) {
	fm, body, err := Parse([]byte("\ufeff---\r\nname: a\r\ndescription: b\r\nallowed-tools: [Read, Grep]\r\n---"))
	if err != nil || fm.Name != "a" || body != "" || len(fm.AllowedTools) != 2 {
		t.Fatalf("%+v %q %v", fm, body, err)
	}
}

func TestSymlinkOutOfWorkspaceIsRefused(t *testing.T) {
	outside := t.TempDir()
	copyTree(t, "testdata/published/pdf-forms", filepath.Join(outside, "pdf-forms"))
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".claude/skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "pdf-forms"), filepath.Join(ws, ".claude/skills/pdf-forms")); err != nil {
		t.Skip("no symlinks:", err)
	}
	root, _ := os.OpenRoot(ws)
	defer root.Close()
	set := Discover(Options{Root: root, Trusted: true})
	if len(set.All()) != 0 {
		t.Errorf("a skill outside the workspace was read: %+v", set.All())
	}
}
