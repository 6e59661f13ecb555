package main

import (
	"os"
	"strings"

	"myclaw/tools"
	"myclaw/tools/proc"
)

// hideSecrets takes API keys and other secrets (the variables ScrubEnv
// drops: OPENAI_API_KEY and names containing KEY, TOKEN, SECRET or PASSWORD)
// out of myclaw's own environment, including the start-up copy that
// /proc/<pid>/environ shows to any process of the user, and returns them for
// myclaw's own use (api_key_env lookups, MCP server env values). Variables
// with a credential inside their value (DATABASE_URL=postgres://u:pw@db) are
// hidden the same way and put back with the credential masked.
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
	// or sent.
	for _, v := range secrets {
		tools.AddSecrets(v)
	}
	err := proc.HideEnviron(names...)
	for k, m := range masked {
		os.Setenv(k, m)
	}
	return secrets, err
}
