package ui

import (
	"strings"
	"testing"

	"myclaw/agent"
	"myclaw/approval"
)

type permFake struct {
	*fakeBackend
	list    []agent.Permission
	others  int
	revoked []agent.Permission
}

func (f *permFake) Permissions() ([]agent.Permission, int, error) { return f.list, f.others, nil }
func (f *permFake) RevokePermission(p agent.Permission) error {
	f.revoked = append(f.revoked, p)
	return nil
}

func TestPermissionsCommand(t *testing.T) {
	f := &permFake{fakeBackend: newFake(), others: 1, list: []agent.Permission{
		{Rule: approval.Rule{Tool: "shell_run", Match: "go test *", Decision: "allow"}, Scope: "session", Where: "this session (gone when myclaw exits)"},
		{Rule: approval.Rule{Tool: "fs_write", Decision: "allow", Workspace: "/src/app"}, Scope: "project", Where: "/home/u/.config/myclaw/config.toml:12"},
		{Rule: approval.Rule{Tool: "shell_run", Match: "git push*", Decision: "deny"}, Scope: "user", Where: "/home/u/.config/myclaw/config.toml:3"},
		{Scope: "project", Where: "/home/u/.local/state/myclaw/mcp-hint-grants.json", Server: "docs", Tools: []string{"docs/read", "docs/search"}},
	}}
	m := runLine(t, newTestModel(t, f), "/permissions")
	got := lastBlock(m)
	for _, want := range []string{
		"1  allow shell_run matching go test *", "session grant · this session",
		"2  allow fs_write", "saved for this project · /home/u/.config/myclaw/config.toml:12",
		"3  deny shell_run matching git push*", "saved for every project · /home/u/.config/myclaw/config.toml:3",
		"4  trust the read-only hints of docs (docs/read, docs/search)", "saved for this project · /home/u/.local/state/myclaw/mcp-hint-grants.json",
		"1 rule saved for other projects", "/permissions remove N",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("/permissions lacks %q:\n%s", want, got)
		}
	}
	m = runLine(t, m, "/permissions remove 2")
	if len(f.revoked) != 1 || f.revoked[0].Tool != "fs_write" || !strings.Contains(lastBlock(m), "removed the rule from /home/u/.config/myclaw/config.toml:12") {
		t.Fatalf("remove 2 revoked %+v and said %q", f.revoked, lastBlock(m))
	}
	m = runLine(t, m, "/permissions remove 9")
	if !strings.Contains(lastBlock(m), "there is no permission #9 (/permissions lists 4 permissions)") {
		t.Fatalf("remove 9 said %q", lastBlock(m))
	}
	m = runLine(t, m, "/permissions drop")
	if !strings.Contains(lastBlock(m), "usage: /permissions [remove N]") {
		t.Fatalf("a bad argument said %q", lastBlock(m))
	}
}
