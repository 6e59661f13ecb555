package tools

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// credStore is one credential store: rel under its base, which is the
// home folder, the config or data folder (~/.config, ~/.local/share, or
// $XDG_CONFIG_HOME, $XDG_DATA_HOME when set), or the folder or file an
// environment variable names (a tool's own override).
type credStore struct {
	base string // "home", "config", "data", or a variable's name
	rel  string // "" for the base itself
}

// credStores is the one table of credential stores: the sandbox hides
// them from commands, and a command line naming one is rated high.
var credStores = []credStore{
	{"home", ".ssh"}, {"home", ".aws"}, {"home", ".kube"}, {"home", ".docker/config.json"}, {"home", ".netrc"},
	{"home", ".gnupg"}, {"home", ".password-store"}, {"home", ".git-credentials"}, {"home", ".azure"},
	{"home", ".npmrc"}, {"home", ".pypirc"}, {"home", ".cargo/credentials"}, {"home", ".cargo/credentials.toml"},
	{"home", ".vault-token"}, {"home", ".terraform.d/credentials"}, {"home", ".terraform.d/credentials.tfrc.json"}, {"home", ".mozilla"},
	{"home", "Library/Keychains"}, {"home", "Library/Application Support/Google/Chrome"},
	{"home", "Library/Application Support/Firefox"},
	{"config", "gcloud"}, {"config", "gh"}, {"config", "hub"}, {"config", "git/credentials"},
	{"config", "google-chrome"}, {"config", "chromium"}, {"config", "BraveSoftware"}, {"config", "myclaw"},
	{"data", "keyrings"},
	{"GH_CONFIG_DIR", ""}, {"GNUPGHOME", ""}, {"DOCKER_CONFIG", "config.json"}, {"CLOUDSDK_CONFIG", ""},
	{"KUBECONFIG", ""}, {"AWS_SHARED_CREDENTIALS_FILE", ""}, {"AWS_CONFIG_FILE", ""}, {"AZURE_CONFIG_DIR", ""},
	{"PASSWORD_STORE_DIR", ""}, {"CARGO_HOME", "credentials"}, {"CARGO_HOME", "credentials.toml"},
	{"NPM_CONFIG_USERCONFIG", ""}, {"HUB_CONFIG", ""},
}

// xdgDefaults are where the config and data folders are when the XDG
// variables do not say.
var xdgDefaults = map[string]struct{ env, home string }{
	"config": {"XDG_CONFIG_HOME", ".config"},
	"data":   {"XDG_DATA_HOME", ".local/share"},
}

// envPaths are the absolute paths variable name holds (KUBECONFIG is a
// list); a relative one means nothing fixed and is left out, as the XDG
// spec says of its own.
func envPaths(getenv func(string) string, name string) []string {
	var out []string
	for _, v := range filepath.SplitList(getenv(name)) {
		if filepath.IsAbs(v) {
			out = append(out, filepath.Clean(v))
		}
	}
	return out
}

// CredentialStores lists the credential stores for the environment
// getenv reads: each home one as "~/…", and, where a variable moves one
// ($XDG_CONFIG_HOME, $XDG_DATA_HOME, GH_CONFIG_DIR, GNUPGHOME,
// DOCKER_CONFIG, KUBECONFIG, …), the absolute path it names as well.
func CredentialStores(getenv func(string) string) []string {
	var out []string
	add := func(p string) {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, s := range credStores {
		switch s.base {
		case "home":
			add("~/" + s.rel)
		case "config", "data":
			d := xdgDefaults[s.base]
			add("~/" + d.home + "/" + s.rel)
			for _, v := range envPaths(getenv, d.env) {
				add(filepath.Join(v, filepath.FromSlash(s.rel)))
			}
		default:
			for _, v := range envPaths(getenv, s.base) {
				add(filepath.Join(v, filepath.FromSlash(s.rel)))
			}
		}
	}
	return out
}

// NamesCredentialStore reports whether a word of a command line names a
// credential store or a file in one: "~/.ssh/id_rsa", "$HOME/.aws",
// "/home/dev/.netrc", "$GNUPGHOME", "${XDG_CONFIG_HOME}/gh/hosts.yml", or
// an absolute path under a store the environment moved.
func NamesCredentialStore(w string, getenv func(string) string) bool {
	in := func(p, store string) bool {
		return p == store || strings.HasPrefix(p, store+"/") || strings.HasPrefix(p, store+"*")
	}
	for _, s := range credStores {
		var bases []string
		rel := s.rel
		switch s.base {
		case "home":
			bases = []string{"~", "$HOME", "${HOME}"}
		case "config", "data":
			d := xdgDefaults[s.base]
			bases = []string{"$" + d.env, "${" + d.env + "}"}
			for _, h := range []string{"~", "$HOME", "${HOME}"} {
				bases = append(bases, h+"/"+d.home)
			}
		default:
			bases = []string{"$" + s.base, "${" + s.base + "}"}
		}
		for _, b := range bases {
			store := b
			if rel != "" {
				store = b + "/" + rel
			}
			if in(w, store) {
				return true
			}
		}
		// Another home folder's store: /home/dev/.ssh/id_rsa.
		under := rel
		d, xdg := xdgDefaults[s.base]
		if xdg {
			under = d.home + "/" + rel
		}
		if clean := path.Clean(w); (s.base == "home" || xdg) && strings.HasPrefix(clean, "/") && strings.Contains(clean+"/", "/"+under+"/") {
			return true
		}
	}
	if !filepath.IsAbs(w) {
		return false
	}
	clean := filepath.Clean(w)
	for _, p := range CredentialStores(getenv) {
		if p = expandTilde(p, getenv); p != "" && in(clean, p) {
			return true
		}
	}
	return false
}

// expandTilde expands a leading "~/" with the home folder getenv says.
func expandTilde(p string, getenv func(string) string) string {
	rest, ok := strings.CutPrefix(p, "~/")
	if !ok {
		return p
	}
	home := homeDir(getenv)
	if home == "" {
		return ""
	}
	return filepath.Join(home, filepath.FromSlash(rest))
}
