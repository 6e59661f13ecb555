package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"myclaw/tools/proc"
	"myclaw/tools/secret"
)

// hideSecrets takes API keys and other secrets (the variables named like
// secrets, proc.IsSecretName) out of myclaw's own environment, including
// the start-up copy that /proc/<pid>/environ shows to any process of the
// user, and returns them for myclaw's own use (api_key_env lookups, MCP
// server env values). Variables with a credential inside their value
// (DATABASE_URL=postgres://u:pw@db) are hidden the same way and put back
// with the credential masked. Variables the config names as credentials
// under any other name (api_key_env = "LLM_AUTH") are hidden once the
// config is read (package app).
func hideSecrets() (map[string]string, error) {
	env := os.Environ()
	secrets := map[string]string{}
	masked := map[string]string{}
	var names []string
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		// A variable with a credential inside its value (DATABASE_URL)
		// stays for children with the credential masked; the real value is
		// kept like a secret for MCP env references.
		m := proc.MaskSecrets(v)
		if proc.IsSecretName(k) || m != v {
			secrets[k] = v
			names = append(names, k)
			if !proc.IsSecretName(k) {
				masked[k] = m
			}
		}
	}
	if len(names) == 0 {
		return secrets, nil
	}
	// Whatever a command prints of them is redacted before it is stored
	// or sent, and no child gets them under another name. A value that
	// names an existing file or folder (GOOGLE_APPLICATION_CREDENTIALS, a
	// KEY_DIR) is a path, not a credential: registered, it would blank that
	// path, and the PATH or HOME that contain it, everywhere.
	for _, v := range secrets {
		if !isPath(v) {
			secret.Add(v)
		}
	}
	err := errors.Join(proc.HideEnviron(names...), proc.HideRegistered())
	for k, m := range masked {
		os.Setenv(k, m)
	}
	return secrets, err
}

// isPath reports whether v is the absolute path of something that exists.
func isPath(v string) bool {
	if !filepath.IsAbs(v) {
		return false
	}
	_, err := os.Lstat(v)
	return err == nil
}
