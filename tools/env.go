package tools

import "strings"

// secretNameParts are substrings that mark an environment variable as a
// secret, compared upper-cased.
var secretNameParts = []string{"KEY", "TOKEN", "SECRET", "PASSWORD"}

// ScrubEnv returns env (KEY=VALUE entries) without secrets: OPENAI_API_KEY and
// any variable whose name contains KEY, TOKEN, SECRET or PASSWORD
// (case-insensitive), plus the extra names given (also case-insensitive). An
// entry without '=' counts as a name with an empty value. env is not modified.
func ScrubEnv(env []string, extra ...string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if isSecretName(name, extra) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

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
