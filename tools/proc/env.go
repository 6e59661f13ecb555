package proc

import (
	"regexp"
	"strings"
)

// secretNameParts are substrings that mark an environment variable as a
// secret, compared upper-cased.
var secretNameParts = []string{"KEY", "TOKEN", "SECRET", "PASSWORD"}

// shellStartupNames are variables that make bash run code or change how it
// parses before the command line does anything (BASH_ENV is sourced by
// bash -c; SHELLOPTS=xtrace with PS4 runs substitutions; BASH_FUNC_name%%
// defines a function that shadows a command). Children never get them, so
// a command means what its parse says.
var shellStartupNames = []string{"BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND"}

// ScrubEnv returns env (KEY=VALUE entries) without secrets: OPENAI_API_KEY and
// any variable whose name contains KEY, TOKEN, SECRET or PASSWORD
// (case-insensitive), plus the extra names given (also case-insensitive).
// Credentials inside the other values are masked (MaskSecrets):
// DATABASE_URL=postgres://app:***@db/x. Variables that make bash run code
// at start-up (BASH_ENV, exported functions, ...) are dropped. An entry
// without '=' counts as a name with an empty value. env is not modified.
func ScrubEnv(env []string, extra ...string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if isSecretName(name, extra) || isShellStartupName(name) {
			continue
		}
		if masked := MaskSecrets(value); masked != value {
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
	if upper == "OPENAI_API_KEY" {
		return true
	}
	for _, part := range secretNameParts {
		if strings.Contains(upper, part) {
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
