package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Definition is a defined agent: a markdown file with frontmatter in
// .myclaw/agents/NAME.md (a trusted project) or
// $XDG_CONFIG_HOME/myclaw/agents/NAME.md.
type Definition struct {
	Name        string
	Description string
	// Mode is explore or edit: an explore agent can never run as edit.
	Mode string
	// Tools, when not empty, is the allow-list: the agent gets only these
	// of the tools its mode offers, never more.
	Tools []string
	// Model, when set, is the model it runs with.
	Model string
	// Prompt is the body: what its system prompt adds.
	Prompt string
	// Origin is the file it came from.
	Origin string
}

var defName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,39}$`)

// LoadDefinitions reads the defined agents of the user's folder, then of
// the project's (project nil when the folder is not trusted): a project
// agent of the same name replaces the user's. Files that do not parse are
// named in the errors and left out.
func LoadDefinitions(user, project fs.FS) ([]Definition, []error) {
	byName := map[string]Definition{}
	var errs []error
	for _, src := range []struct {
		fsys  fs.FS
		label string
	}{{user, "user"}, {project, "project"}} {
		if src.fsys == nil {
			continue
		}
		names, err := fs.Glob(src.fsys, "*.md")
		if err != nil {
			continue
		}
		for _, n := range names {
			data, err := fs.ReadFile(src.fsys, n)
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					errs = append(errs, fmt.Errorf("%s agent %s: %w", src.label, n, err))
				}
				continue
			}
			d, err := ParseDefinition(strings.TrimSuffix(path.Base(n), ".md"), data)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s agent %s: %w", src.label, n, err))
				continue
			}
			d.Origin = src.label + ": " + n
			byName[d.Name] = d
		}
	}
	out := make([]Definition, 0, len(byName))
	for _, d := range byName {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, errs
}

// DirFS is os.DirFS of dir, or nil when dir does not exist.
func DirFS(dir string) fs.FS {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil
	}
	return os.DirFS(dir)
}

// ParseDefinition parses one definition file.
func ParseDefinition(name string, data []byte) (Definition, error) {
	d := Definition{Name: name}
	if !defName.MatchString(name) {
		return d, fmt.Errorf("the name %q is not lowercase letters, digits, - and _", name)
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return d, errors.New("it does not start with frontmatter (a --- line)")
	}
	head, body, ok := strings.Cut(text[4:], "\n---")
	if !ok {
		return d, errors.New("its frontmatter has no closing --- line")
	}
	_, body, _ = strings.Cut(body, "\n")
	for i, line := range strings.Split(head, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			return d, fmt.Errorf("frontmatter line %d is not key: value", i+1)
		}
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		switch strings.TrimSpace(k) {
		case "description":
			d.Description = v
		case "mode":
			d.Mode = v
		case "model":
			d.Model = v
		case "tools":
			for _, t := range strings.Split(strings.Trim(v, "[]"), ",") {
				if t = strings.Trim(strings.TrimSpace(t), `"'`); t != "" && !slices.Contains(d.Tools, t) {
					d.Tools = append(d.Tools, t)
				}
			}
		case "name":
		default:
			return d, fmt.Errorf("unknown frontmatter key %q (want description, mode, tools, model)", strings.TrimSpace(k))
		}
	}
	switch d.Mode {
	case "":
		d.Mode = ModeExplore
	case ModeExplore, ModeEdit:
	default:
		return d, fmt.Errorf("mode %q: want explore or edit", d.Mode)
	}
	if d.Description == "" {
		return d, errors.New("it has no description (the model chooses agents by it)")
	}
	d.Description = oneLine(d.Description, 200)
	d.Prompt = strings.TrimSpace(body)
	return d, nil
}
