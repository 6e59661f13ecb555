package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"myclaw/skills"
	"myclaw/tools"
	"myclaw/tools/termtext"
)

//go:embed skill.md
var skillDescription string

// skillFileList bounds the files a loaded skill lists.
const skillFileList = 100

type skillTool struct {
	set  *skills.Set
	meta tools.Meta
}

// NewSkill returns the skill tool, which loads the skills of set. What it
// returns counts as instructions (not untrusted content): only skills of
// the user's folder and of a trusted workspace are loadable.
func NewSkill(set *skills.Set) tools.Tool {
	return &skillTool{set: set, meta: tools.Meta{
		Name:        "skill",
		Description: strings.TrimSpace(skillDescription),
		Schema: json.RawMessage(`{"type": "object", "properties": {
			"name": {"type": "string", "description": "the skill's name, as listed"},
			"file": {"type": "string", "description": "optional: a file of the skill's folder to read instead, relative to it"}
		}, "required": ["name"], "additionalProperties": false}`),
		ReadOnly:   true,
		Risk:       tools.RiskLow,
		Idempotent: true,
		Capability: "skill:read",
		Timeout:    10 * time.Second,
		Source:     tools.SourceBuiltin,
	}}
}

// Meta implements Tool.
func (t *skillTool) Meta() tools.Meta { return t.meta }

type skillOutput struct {
	Name   string   `json:"name"`
	Origin string   `json:"origin"`
	File   string   `json:"file,omitempty"`
	Files  []string `json:"files,omitempty"`
	More   bool     `json:"more_files,omitempty"`
	Cut    bool     `json:"truncated,omitempty"`
}

// Execute implements Tool.
func (t *skillTool) Execute(_ context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Name string `json:"name"`
		File string `json:"file"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, `Send {"name": "..."}.`, "arguments are not valid: %v", err)
	}
	sk, ok := t.set.Lookup(strings.TrimSpace(a.Name))
	if !ok {
		var names []string
		for _, s := range t.set.All() {
			if s.Loadable() {
				names = append(names, s.Name)
			}
		}
		return tools.Result{}, tools.Errorf(tools.KindNotFound, "Use a name listed under Skills in the system prompt: "+strings.Join(names, ", ")+".", "no skill %q", a.Name)
	}
	if !sk.Loadable() {
		return tools.Result{}, tools.Errorf(tools.KindPermissionDenied, "Do the task without it; the user can load it.", "the skill %q cannot be loaded: %s", sk.Name, sk.Why)
	}
	origin := termtext.Strip(sk.Origin)
	if a.File != "" {
		b, cut, err := sk.ReadFile(a.File)
		if err != nil {
			return tools.Result{}, tools.Errorf(tools.KindNotFound, "Name a file from the skill's file list, relative to its folder.", "%s: %v", sk.Name, err)
		}
		if !utf8.Valid(b) {
			return tools.Result{}, tools.Errorf(tools.KindUnsupported, "Only text files of a skill can be read.", "%s/%s is not text", sk.Name, a.File)
		}
		return tools.Result{
			Output:  skillOutput{Name: sk.Name, Origin: origin, File: a.File, Cut: cut},
			Body:    string(b),
			Summary: fmt.Sprintf("Read %s of the skill %s", termtext.Strip(a.File), sk.Name),
		}, nil
	}
	body, err := sk.Body()
	if err != nil {
		return tools.Result{}, tools.Errorf(tools.KindExternalError, "The skill's SKILL.md changed or went away; do the task without it.", "load the skill %s: %v", sk.Name, err)
	}
	files, more := sk.Files(skillFileList)
	return tools.Result{
		Output:  skillOutput{Name: sk.Name, Origin: origin, Files: files, More: more},
		Body:    body,
		Summary: "Loaded the skill " + termtext.Strip(sk.Name) + " (" + origin + ")",
	}, nil
}
