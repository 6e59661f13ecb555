package app

import (
	"errors"
	"net/url"
	"os"
	"strings"

	"myclaw/tools/proc"
	"myclaw/tools/secret"
)

// lookup reads a variable: the secrets taken out of the environment at
// start first, then the environment, then what was hidden since.
func (a *app) lookup(name string) string {
	if v, ok := a.secrets[name]; ok {
		return v
	}
	return proc.Getenv(name)
}

// credential returns the value of the variable name, which the config uses
// as a credential whatever it is called (an api_key_env, a client secret,
// an MCP header's ${VAR}). The value joins the secret registry, so that no
// child inherits it under any name and no output shows it, and the
// variable, with any copy of its value under another name, leaves myclaw's
// environment (and, on Linux, the start-up copy in /proc), so that no child
// started without scrubbing (the editor, the browser) inherits it either.
func (a *app) credential(name string) string {
	v := a.lookup(name)
	if v == "" {
		return ""
	}
	secret.Add(v)
	var err error
	if _, ok := os.LookupEnv(name); ok {
		err = proc.HideEnviron(name) // also when too short to register
	}
	if err = errors.Join(err, proc.HideRegistered()); err != nil {
		a.logf("hide %s: %v", name, err)
	}
	return v
}

// reference resolves a ${VAR} in an MCP server's headers or env: a
// credential, unless it is a variable every process shares (PATH, HOME),
// which no one keeps secret and every child needs.
func (a *app) reference(name string) string {
	if proc.IsSharedName(name) {
		return a.lookup(name)
	}
	return a.credential(name)
}

// addURLSecrets registers what a configured URL carries as a credential:
// the password of its user info and the values of query parameters named
// like secrets (?token=..., ?api_key=...).
func addURLSecrets(raw string) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || raw == "" {
		return
	}
	if p, ok := u.User.Password(); ok {
		secret.Add(p, url.QueryEscape(p))
	}
	for k, vs := range u.Query() {
		if proc.IsSecretName(k) || strings.EqualFold(k, "auth") {
			for _, v := range vs {
				secret.Add(v, url.QueryEscape(v))
			}
		}
	}
}

// addHeaderSecret registers the value of an MCP header that carries a
// credential (Authorization, Cookie, X-Api-Key, ...), and the credential
// alone after its scheme ("Bearer <token>"), as it is most often printed.
func addHeaderSecret(name, value string) {
	if !strings.EqualFold(name, "Authorization") && !strings.EqualFold(name, "Proxy-Authorization") &&
		!proc.IsSecretName(strings.ReplaceAll(name, "-", "_")) {
		return
	}
	secret.Add(value)
	if _, cred, ok := strings.Cut(strings.TrimSpace(value), " "); ok {
		secret.Add(cred)
	}
}
