package shell

import (
	"slices"
	"strings"

	"myclaw/tools"
)

// gitEffects rates a git command. The journal leaves .git out, so what git
// destroys there (branches, stashes, reflogs, unreachable objects) or in
// the working tree behind the journal's back (reset --hard, checkout --,
// clean) undo cannot bring back: those are high, with the reason shown.
// Reading, staging, committing and creating branches are low.
func (p *lineParser) gitEffects(rest []string) {
	args := gitSubcommand(rest)
	if len(args) == 0 {
		p.raise(tools.RiskLow, "")
		return
	}
	sub, opts := args[0], args[1:]
	if why := gitDestroys(sub, opts); why != "" {
		p.raise(tools.RiskHigh, why+": undo cannot restore it")
		p.notUndoable(why)
		return
	}
	if sub == "config" && gitConfigWrites(args[1:]) {
		p.raise(tools.RiskHigh, "git config changes the repository's configuration, which decides what git runs (hooks, fsmonitor, filters)")
		return
	}
	switch sub {
	case "status", "diff", "log", "show", "add", "commit", "blame", "grep", "ls-files", "ls-tree", "rev-parse",
		"describe", "shortlog", "whatchanged", "cat-file", "rev-list", "for-each-ref", "show-ref", "reflog",
		"branch", "tag", "switch", "checkout", "stash", "fetch", "remote", "config", "help", "version",
		"merge-base", "name-rev", "count-objects", "fsck", "var", "check-ignore", "check-attr", "diff-tree",
		"diff-index", "diff-files", "range-diff", "format-patch", "bisect", "notes", "worktree", "init", "mv", "rm",
		"restore", "cherry", "verify-commit", "verify-tag", "archive", "bundle", "submodule", "sparse-checkout":
		p.raise(tools.RiskLow, "")
	case "push", "send-email", "request-pull", "svn", "p4":
		p.raise(tools.RiskHigh, "git "+sub+" sends work out of the workspace, which undo cannot recall")
		p.notUndoable("git " + sub + " sends work out of the workspace")
	default:
		p.raise(tools.RiskMedium, "git "+sub+" changes the repository")
	}
}

// gitDestroys says what a git subcommand with these options destroys that
// undo cannot restore ("git reset --hard discards uncommitted work"), or
// "". The list follows git's own command list (git help -a).
func gitDestroys(sub string, opts []string) string {
	has := func(flags ...string) bool {
		for _, a := range opts {
			if a == "--" {
				return false
			}
			for _, f := range flags {
				if a == f || strings.HasPrefix(a, f+"=") {
					return true
				}
				// A cluster of short options: -fd, -Df.
				if len(f) == 2 && f[0] == '-' && f[1] != '-' && len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a[1:], rune(f[1])) {
					return true
				}
			}
		}
		return false
	}
	first := ""
	if len(opts) > 0 {
		first = opts[0]
	}
	switch sub {
	case "branch":
		switch {
		case has("-D"):
			return "git branch -D deletes a branch even if no other branch has its commits"
		case has("-d", "--delete") && has("-f", "--force"):
			return "git branch -d --force deletes a branch whatever it holds"
		case has("-M", "-C"), has("-f", "--force"):
			return "git branch --force moves or overwrites a branch, losing where it pointed"
		}
	case "checkout":
		switch {
		case slices.Contains(opts, "--"), slices.Contains(opts, "."):
			return "git checkout -- discards uncommitted changes to the files"
		case has("-f", "--force"):
			return "git checkout --force discards uncommitted changes"
		case has("-B"):
			return "git checkout -B resets a branch, losing where it pointed"
		case has("--ours", "--theirs", "-p", "--patch"):
			return "git checkout " + first + " overwrites files in the working tree"
		}
	case "switch":
		switch {
		case has("--discard-changes", "-f", "--force"):
			return "git switch --discard-changes discards uncommitted changes"
		case has("-C", "--force-create"):
			return "git switch -C resets a branch, losing where it pointed"
		}
	case "restore":
		if !has("-S", "--staged") || has("-W", "--worktree") {
			return "git restore discards uncommitted changes to the files"
		}
	case "reset":
		switch {
		case has("--hard"):
			return "git reset --hard discards uncommitted work"
		case has("--merge", "--keep"):
			return "git reset " + first + " moves the branch and rewrites the working tree"
		}
	case "clean":
		if has("-f", "--force") {
			return "git clean -f deletes untracked files"
		}
	case "stash":
		switch first {
		case "drop", "clear":
			return "git stash " + first + " deletes stashed work"
		}
	case "reflog":
		switch first {
		case "expire", "delete":
			return "git reflog " + first + " deletes the history that recovers lost commits"
		}
	case "gc", "prune", "repack", "prune-packed", "maintenance":
		return "git " + sub + " deletes unreachable commits for good"
	case "push":
		switch {
		case has("-f", "--force", "--force-with-lease", "--force-if-includes", "--mirror"):
			return "git push --force rewrites history on the remote"
		case has("-d", "--delete", "--prune"):
			return "git push --delete deletes branches on the remote"
		}
		for _, a := range opts {
			if strings.HasPrefix(a, "+") || strings.HasPrefix(a, ":") {
				return "git push " + a + " rewrites or deletes a branch on the remote"
			}
		}
	case "worktree":
		switch {
		case first == "remove" && has("-f", "--force"):
			return "git worktree remove --force deletes a worktree with its changes"
		case first == "prune":
			return "git worktree prune forgets worktrees"
		}
	case "update-ref":
		if has("-d", "--stdin") {
			return "git update-ref " + first + " deletes or rewrites refs"
		}
		return "git update-ref moves a ref, losing where it pointed"
	case "symbolic-ref":
		if has("-d", "--delete") {
			return "git symbolic-ref -d deletes a ref"
		}
	case "tag":
		if has("-d", "--delete", "-f", "--force") {
			return "git tag " + first + " deletes or moves a tag"
		}
	case "remote":
		switch first {
		case "remove", "rm", "prune", "set-url":
			return "git remote " + first + " drops remote branches or settings"
		}
	case "filter-branch", "filter-repo", "replace":
		return "git " + sub + " rewrites history"
	case "rebase":
		return "git rebase rewrites the branch's commits"
	case "merge", "cherry-pick", "revert", "am":
		if has("--abort", "--quit") {
			return "git " + sub + " " + first + " discards the changes in progress"
		}
	case "notes":
		if first == "remove" || first == "prune" {
			return "git notes " + first + " deletes notes"
		}
	case "submodule":
		if first == "deinit" && has("-f", "--force") {
			return "git submodule deinit --force deletes a submodule's working tree"
		}
	case "lfs":
		if first == "prune" {
			return "git lfs prune deletes stored files"
		}
	}
	return ""
}

// gitConfigWrites reports whether git config with these arguments sets,
// adds or removes a key rather than reading one.
func gitConfigWrites(args []string) bool {
	n := 0
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--get" || a == "--get-all" || a == "--get-regexp" || a == "--get-urlmatch" || a == "-l" || a == "--list" ||
			a == "get" || a == "list" && n == 0:
			return false
		case a == "--add" || a == "--unset" || a == "--unset-all" || a == "--replace-all" || a == "--rename-section" ||
			a == "--remove-section" || a == "-e" || a == "--edit" || a == "set" && n == 0 || a == "unset" && n == 0 || a == "edit" && n == 0:
			return true
		case a == "-f" || a == "--file" || a == "--blob" || a == "--type" || a == "--default":
			i++ // takes a value
		case strings.HasPrefix(a, "-"):
		default:
			n++
		}
	}
	return n >= 2
}
