package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

func TestVerdictKeyChangesWithTheSystem(t *testing.T) {
	if _, ok := platformKey(); !ok {
		t.Skip("no verdict cache on this platform")
	}
	dir := t.TempDir()
	boot, userns, apparmor := filepath.Join(dir, "boot_id"), filepath.Join(dir, "userns"), filepath.Join(dir, "apparmor")
	for _, f := range []string{boot, userns, apparmor} {
		os.WriteFile(f, []byte("1\n"), 0o600)
	}
	oldBoot, oldSys := bootIDPath, verdictSysctls
	defer func() { bootIDPath, verdictSysctls = oldBoot, oldSys }()
	bootIDPath, verdictSysctls = boot, append([]string{userns, apparmor}, verdictSysctls...)
	s := New(Options{Workspace: dir, Executable: fakeExe(t)})
	key := s.verdictKey()
	for _, f := range []string{boot, userns, apparmor} {
		os.WriteFile(f, []byte("2\n"), 0o600)
		k := s.verdictKey()
		if k == key {
			t.Errorf("changing %s left the key as it was", filepath.Base(f))
		}
		key = k
	}
	os.Remove(apparmor)
	if s.verdictKey() == key {
		t.Error("a sysctl that went away left the key as it was")
	}
	os.Remove(boot)
	if k := s.verdictKey(); k != "" {
		t.Errorf("without a boot id the key is %q; want none (no caching)", k)
	}
}
