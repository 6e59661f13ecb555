package tools

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestCredentialStoresFollowTheEnvironment: a store moved by the XDG
// folders or a tool's own variable is listed where it is, besides its home
// place; relative values are ignored.
func TestCredentialStoresFollowTheEnvironment(t *testing.T) {
	env := map[string]string{
		"HOME": "/home/dev", "XDG_CONFIG_HOME": "/tmp/x/cfg", "XDG_DATA_HOME": "/tmp/x/data",
		"GH_CONFIG_DIR": "/o/gh", "GNUPGHOME": "/o/gnupg", "DOCKER_CONFIG": "/o/docker", "CLOUDSDK_CONFIG": "/o/gcloud",
		"KUBECONFIG":                  "/o/kube/a" + string(filepath.ListSeparator) + "rel/b" + string(filepath.ListSeparator) + "/o/kube/c",
		"AWS_SHARED_CREDENTIALS_FILE": "/o/aws/creds", "AWS_CONFIG_FILE": "/o/aws/config", "AZURE_CONFIG_DIR": "/o/azure",
		"CARGO_HOME": "relative/cargo",
	}
	got := CredentialStores(func(k string) string { return env[k] })
	for _, want := range []string{"~/.ssh", "~/.config/gh", "~/.local/share/keyrings",
		"/tmp/x/cfg/gh", "/tmp/x/cfg/git/credentials", "/tmp/x/cfg/gcloud", "/tmp/x/data/keyrings",
		"/o/gh", "/o/gnupg", "/o/docker/config.json", "/o/gcloud", "/o/kube/a", "/o/kube/c",
		"/o/aws/creds", "/o/aws/config", "/o/azure"} {
		if !slices.Contains(got, want) {
			t.Errorf("CredentialStores lacks %s: %q", want, got)
		}
	}
	for _, p := range got {
		if p != "" && p[0] != '/' && p[0] != '~' {
			t.Errorf("CredentialStores holds the relative %q", p)
		}
	}
	bare := CredentialStores(func(string) string { return "" })
	if slices.Contains(bare, "/tmp/x/cfg/gh") || !slices.Contains(bare, "~/.config/gh") {
		t.Errorf("without the variables: %q", bare)
	}
}

func TestNamesCredentialStore(t *testing.T) {
	env := map[string]string{"HOME": "/home/dev", "XDG_CONFIG_HOME": "/tmp/x/cfg", "GNUPGHOME": "/o/gnupg", "KUBECONFIG": "/o/kube/a"}
	getenv := func(k string) string { return env[k] }
	for _, w := range []string{"~/.ssh/id_rsa", "$HOME/.aws", "/home/other/.netrc", "/tmp/x/cfg/gh/hosts.yml",
		"/tmp/x/cfg/git/credentials", "$XDG_CONFIG_HOME/gh", "${XDG_CONFIG_HOME}/gh/hosts.yml", "$GNUPGHOME",
		"${GH_CONFIG_DIR}/hosts.yml", "/o/gnupg/private-keys-v1.d", "/o/kube/a", "/home/other/.config/gh/hosts.yml",
		"~/.local/share/keyrings/login.keyring"} {
		if !NamesCredentialStore(w, getenv) {
			t.Errorf("NamesCredentialStore(%q) = false", w)
		}
	}
	for _, w := range []string{"go.mod", "/tmp/x/cfg/nvim/init.lua", "$XDG_CONFIG_HOME/nvim", "/o/kube/ab", "~/.sshx"} {
		if NamesCredentialStore(w, getenv) {
			t.Errorf("NamesCredentialStore(%q) = true", w)
		}
	}
}
