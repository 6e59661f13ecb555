package proc

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"myclaw/tools/secret"
)

// What marks an environment variable as a secret by its name, compared
// upper-cased. Substrings: KEY, TOKEN (SESSION_TOKEN, NPM_TOKEN), SECRET,
// PASSWORD, PASSWD, CREDENTIAL (GOOGLE_CREDENTIALS; also
// GOOGLE_APPLICATION_CREDENTIALS, whose value is only the path of a key
// file: it is dropped like every credential variable, though myclaw does
// not register a path as a secret value), COOKIE. Suffixes, where the word
// alone is too common: _AUTH (NPM_CONFIG__AUTH, LLM_AUTH; AUTHOR,
// GIT_AUTHOR_NAME, SSH_AUTH_SOCK and AUTH_DOMAIN, a public host name, stay),
// _PAT (GITHUB_PAT), _PWD (MYSQL_PWD; PWD and OLDPWD stay). Whole names:
// DOCKER_AUTH_CONFIG.
var (
	secretNameParts    = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "COOKIE"}
	secretNameSuffixes = []string{"_AUTH", "_PAT", "_PWD"}
	secretNames        = []string{"OPENAI_API_KEY", "DOCKER_AUTH_CONFIG"}
)

// shellStartupNames are variables that make bash run code or change how it
// parses before the command line does anything (BASH_ENV is sourced by
// bash -c; SHELLOPTS=xtrace with PS4 runs substitutions; BASH_FUNC_name%%
// defines a function that shadows a command). Children never get them, so
// a command means what its parse says.
var shellStartupNames = []string{"BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND"}

// ScrubEnv returns env (KEY=VALUE entries) without secrets, for a child
// process: variables named like secrets (IsSecretName) and the extra names
// given (case-insensitive) are dropped, and so is any variable whose value
// is a credential myclaw holds (package secret), whatever it is called
// (LLM_AUTH=<the provider key>, a copy of an MCP token under another
// name). A registered credential inside a longer value is replaced by
// "[redacted]"; other credentials inside values are masked (MaskSecrets):
// DATABASE_URL=postgres://app:***@db/x. Variables that make bash run code
// at start-up (BASH_ENV, exported functions, ...) are dropped. An entry
// without '=' counts as a name with an empty value. env is not modified.
func ScrubEnv(env []string, extra ...string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if isSecretName(name, extra) || isShellStartupName(name) || secret.Is(value) {
			continue
		}
		if masked := MaskSecrets(secret.Redact(value)); masked != value {
			kv = name + "=" + masked
		}
		out = append(out, kv)
	}
	return out
}

// IsSecretName reports whether ScrubEnv drops a variable for its name alone.
func IsSecretName(name string) bool { return isSecretName(name, nil) }

func isSecretName(name string, extra []string) bool {
	upper := strings.ToUpper(name)
	if slices.Contains(secretNames, upper) {
		return true
	}
	for _, part := range secretNameParts {
		if strings.Contains(upper, part) {
			return true
		}
	}
	for _, suffix := range secretNameSuffixes {
		if strings.HasSuffix(upper, suffix) {
			return true
		}
	}
	for _, e := range extra {
		if strings.EqualFold(name, e) {
			return true
		}
	}
	return false
}

// IsSharedName reports whether a variable is one every process has and
// none keeps secret (PATH, HOME, USER, LANG, LC_*, XDG_*, ...). A config
// that refers to one ($HOME in an MCP server's env) does not make its value
// a credential: registering it would strip it from every child and blank
// it in every output.
func IsSharedName(name string) bool {
	upper := strings.ToUpper(name)
	return slices.Contains(sharedNames, upper) || strings.HasPrefix(upper, "LC_") || strings.HasPrefix(upper, "XDG_")
}

var sharedNames = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "PWD", "OLDPWD", "TMPDIR", "TMP", "TEMP", "LANG", "LANGUAGE", "TERM", "TZ", "HOSTNAME", "EDITOR", "VISUAL", "PAGER"}

func isShellStartupName(name string) bool {
	if strings.HasPrefix(name, "BASH_FUNC_") {
		return true
	}
	for _, n := range shellStartupNames {
		if name == n {
			return true
		}
	}
	return false
}

// secretMask replaces a credential in a value.
const secretMask = "***"

var (
	// URL userinfo passwords: scheme://user:PASSWORD@host, scheme://:PASSWORD@host.
	urlPassword = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.\-]*://[^:@/\s?#]*:)([^@\s/?#]+)@`)
	// key=value credentials in DSNs, query strings and option lists:
	// "host=db password=x", "?sslpassword=x&", "Pwd=x;", "token: x".
	kvSecret = regexp.MustCompile(`(?i)(^|[\s?&;,])([a-z0-9_.]*(?:password|passwd|pwd|secret|token|api[_\-]?key|access[_\-]?key)[a-z0-9_.\-]*\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s&;,]+)`)
	// Tokens recognisable by their shape wherever they appear.
	tokenShape = regexp.MustCompile(`\b(?:sk-[A-Za-z0-9_\-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abprs]-[A-Za-z0-9\-]{10,}|glpat-[A-Za-z0-9_\-]{16,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{30,})\b`)
	// HTTP authorization values: "Bearer x", "Basic x".
	authValue = regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]{8,}`)
)

// MaskSecrets returns s with the credentials it recognises replaced by
// "***": passwords in URLs, key=value pairs named like secrets, bearer
// values and tokens of well-known shapes. The rest is kept, so that a
// DATABASE_URL still names its host and database. s is returned unchanged
// when nothing matches.
func MaskSecrets(s string) string {
	if s == "" {
		return s
	}
	s = urlPassword.ReplaceAllString(s, "${1}"+secretMask+"@")
	s = kvSecret.ReplaceAllStringFunc(s, func(m string) string {
		sub := kvSecret.FindStringSubmatch(m)
		if sub[3] == secretMask {
			return m
		}
		return sub[1] + sub[2] + secretMask
	})
	s = tokenShape.ReplaceAllString(s, secretMask)
	s = authValue.ReplaceAllString(s, "${1} "+secretMask)
	return s
}

// hiddenVars are the variables HideEnviron took out of the environment,
// for Getenv.
var hiddenVars struct {
	mu sync.Mutex
	m  map[string]string
}

// rememberHidden keeps the values of the named variables before they are
// unset.
func rememberHidden(names []string) {
	hiddenVars.mu.Lock()
	defer hiddenVars.mu.Unlock()
	for _, n := range names {
		if v, ok := os.LookupEnv(n); ok {
			if hiddenVars.m == nil {
				hiddenVars.m = map[string]string{}
			}
			hiddenVars.m[n] = v
		}
	}
}

// Getenv returns the value of the variable name, also after HideEnviron
// took it out of the environment: myclaw still uses the credentials it
// keeps from its children.
func Getenv(name string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	hiddenVars.mu.Lock()
	defer hiddenVars.mu.Unlock()
	return hiddenVars.m[name]
}

// HideRegistered hides (HideEnviron) every variable of this process whose
// value is a registered credential (package secret), whatever its name: a
// copy of a key or token under a name no rule knows. Call it after
// registering values.
func HideRegistered() error {
	var names []string
	for _, kv := range os.Environ() {
		if name, value, _ := strings.Cut(kv, "="); secret.Is(value) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	return HideEnviron(names...)
}
