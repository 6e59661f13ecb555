// Package skills finds Agent Skills: folders holding a SKILL.md, whose
// YAML front matter names and describes the skill and whose body holds
// its instructions. Only names and descriptions go into the prompt; the
// model loads a body when it needs it (the skill tool).
package skills

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// Bounds from the published format.
const (
	maxNameLen        = 64
	maxDescriptionLen = 1024
)

// Frontmatter is what myclaw reads of a SKILL.md's front matter. Other
// fields (license, metadata, compatibility, …) are allowed and ignored.
type Frontmatter struct {
	Name        string
	Description string
	// AllowedTools is shown in /skills; it grants nothing (see README).
	AllowedTools []string
}

// Parse splits a SKILL.md into its front matter and body.
func Parse(src []byte) (Frontmatter, string, error) {
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return Frontmatter{}, "", errors.New("it does not start with a front matter block (a line \"---\", YAML, then \"---\")")
	}
	rest := text[len("---\n"):]
	var head, body string
	switch {
	case strings.HasPrefix(rest, "---\n") || rest == "---":
		body = strings.TrimPrefix(strings.TrimPrefix(rest, "---"), "\n")
	default:
		i := strings.Index(rest, "\n---\n")
		if i < 0 {
			if !strings.HasSuffix(rest, "\n---") {
				return Frontmatter{}, "", errors.New("its front matter has no closing \"---\" line")
			}
			i = len(rest) - len("\n---")
			head = rest[:i]
		} else {
			head, body = rest[:i], rest[i+len("\n---\n"):]
		}
	}
	var raw map[string]any
	if err := yaml.Unmarshal([]byte(head), &raw); err != nil {
		return Frontmatter{}, "", fmt.Errorf("its front matter is not valid YAML: %w", err)
	}
	var fm Frontmatter
	var err error
	if fm.Name, err = stringField(raw, "name"); err != nil {
		return fm, "", err
	}
	if fm.Description, err = stringField(raw, "description"); err != nil {
		return fm, "", err
	}
	fm.Name, fm.Description = strings.TrimSpace(fm.Name), strings.TrimSpace(fm.Description)
	if err := checkName(fm.Name); err != nil {
		return fm, "", err
	}
	switch {
	case fm.Description == "":
		return fm, "", errors.New("its front matter has no description (say what the skill does and when to use it)")
	case len(fm.Description) > maxDescriptionLen:
		return fm, "", fmt.Errorf("its description is %d bytes long; at most %d", len(fm.Description), maxDescriptionLen)
	}
	if fm.AllowedTools, err = toolList(raw["allowed-tools"]); err != nil {
		return fm, "", err
	}
	return fm, strings.TrimLeft(body, "\n"), nil
}

func stringField(raw map[string]any, key string) (string, error) {
	v, ok := raw[key]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("its %s is a %T, not text", key, v)
	}
	return s, nil
}

// checkName accepts the published kebab-case names and, leniently,
// other one-word names; it refuses what could not be typed as an argument.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("its front matter has no name")
	case len(name) > maxNameLen:
		return fmt.Errorf("its name is %d bytes long; at most %d", len(name), maxNameLen)
	}
	for _, r := range name {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) || r == '/' || r == '\\' {
			return fmt.Errorf("its name %q has a space, a slash or a control character; use lowercase letters, digits and hyphens", name)
		}
	}
	return nil
}

// toolList reads allowed-tools: a list, or one string of names separated
// by commas or spaces (both are in use).
func toolList(v any) ([]string, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case string:
		return strings.FieldsFunc(t, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }), nil
	case []any:
		var out []string
		for _, e := range t {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("its allowed-tools holds a %T; want tool names", e)
			}
			out = append(out, strings.TrimSpace(s))
		}
		return out, nil
	}
	return nil, fmt.Errorf("its allowed-tools is a %T; want a list of tool names", v)
}
