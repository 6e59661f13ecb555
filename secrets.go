package main

import (
	"os"
	"strings"

	"myclaw/tools"
)

// hideSecrets takes API keys and other secrets (the variables ScrubEnv
// drops: OPENAI_API_KEY and names containing KEY, TOKEN, SECRET or PASSWORD)
// out of myclaw's own environment, including the start-up copy that
// /proc/<pid>/environ shows to any process of the user, and returns them for
// myclaw's own use (api_key_env lookups, MCP server env values).
func hideSecrets() (map[string]string, error) {
	env := os.Environ()
	kept := map[string]bool{}
	for _, kv := range tools.ScrubEnv(env) {
		kept[kv] = true
	}
	secrets := map[string]string{}
	var names []string
	for _, kv := range env {
		if kept[kv] {
			continue
		}
		if k, v, ok := strings.Cut(kv, "="); ok {
			secrets[k] = v
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		return secrets, nil
	}
	return secrets, tools.HideEnviron(names...)
}
