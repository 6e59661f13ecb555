package tools

import (
	"path"
	"strings"
)

// TrustedFile says what a workspace path (relative, slash or backslash
// separated) is when later sessions trust its content: instructions they
// follow (AGENTS.md, CLAUDE.md, GEMINI.md in any folder, skills, custom
// commands), configuration that runs code (.myclaw.toml, .git, the folder
// a repository's core.hooksPath names once SetWorkspace was called), e.g.
// "AGENTS.md, which later sessions follow as instructions"; "" for any
// other path. Letter case is ignored, as on macOS and Windows. Writing such
// a file is how planted instructions would outlive the session.
func TrustedFile(p string) string {
	if what := TrustedFileByName(p); what != "" {
		return what
	}
	clean := strings.TrimPrefix(path.Clean(strings.ReplaceAll(p, `\`, "/")), "./")
	return inHooksFolder(clean)
}

// TrustedFileByName is TrustedFile by the path's names alone, reading
// nothing: for many paths at once (what a command changed), where a hooks
// folder is the sandbox's to protect.
func TrustedFileByName(p string) string {
	clean := path.Clean(strings.ReplaceAll(p, `\`, "/"))
	clean = strings.TrimPrefix(clean, "./")
	segs := strings.Split(clean, "/")
	base := segs[len(segs)-1]
	for i, s := range segs {
		switch {
		case strings.EqualFold(s, ".git"):
			return clean + ", inside .git, whose hooks and config run code"
		case strings.EqualFold(s, ".myclaw") && i < len(segs)-1:
			return clean + ", inside .myclaw, whose commands, skills and agents later sessions follow as instructions"
		case (strings.EqualFold(s, ".agents") || strings.EqualFold(s, ".claude")) && i+1 < len(segs) && strings.EqualFold(segs[i+1], "skills"):
			return clean + ", a skill file, which later sessions follow as instructions"
		}
	}
	switch strings.ToUpper(base) {
	case "AGENTS.MD", "CLAUDE.MD", "GEMINI.MD":
		return clean + ", which later sessions follow as instructions"
	}
	if len(segs) == 1 && strings.EqualFold(base, ".myclaw.toml") {
		return ".myclaw.toml, the project's configuration, which defines tools, servers and hooks that run"
	}
	if strings.EqualFold(base, ".myclaw") || strings.EqualFold(base, ".git") {
		return clean + ", which holds instructions and configuration later sessions trust"
	}
	return ""
}
