package proc

import (
	"slices"
	"testing"

	"myclaw/tools/secret"
)

func TestScrubEnv(t *testing.T) {
	tests := []struct {
		name  string
		env   []string
		extra []string
		want  []string
	}{
		{
			name: "openai key and secret-like names dropped",
			env: []string{
				"PATH=/usr/bin", "OPENAI_API_KEY=sk-1", "GITHUB_TOKEN=t", "X_token=t",
				"AWS_SECRET_ACCESS_KEY=s", "DB_PASSWORD=p", "apikey=k", "HOME=/home/u",
			},
			want: []string{"PATH=/usr/bin", "HOME=/home/u"},
		},
		{
			name:  "extra names dropped case-insensitively",
			env:   []string{"PATH=/bin", "ANTHROPIC_CRED=a", "Private_Stuff=b", "LANG=C"},
			extra: []string{"anthropic_cred", "PRIVATE_STUFF"},
			want:  []string{"PATH=/bin", "LANG=C"},
		},
		{
			name: "values are not inspected",
			env:  []string{"NOTE=my TOKEN is here", "EDITOR=vi"},
			want: []string{"NOTE=my TOKEN is here", "EDITOR=vi"},
		},
		{
			name: "credentials inside values masked, the rest kept",
			env: []string{
				"DATABASE_URL=postgres://app:PASSWORD@db/x", "REDIS_URL=redis://:PASSWORD@host:6379/0",
				"PG_DSN=host=db user=app password=PASSWORD sslmode=disable", "MSSQL=Server=db;Uid=app;Pwd=PASSWORD;",
				"API_URL=https://api.example.com/v1?token=PASSWORD&x=1", "HDR=Authorization: Bearer PASSWORDPASSWORD",
				"OPENAI=sk-PASSWORDPASSWORDPASSWORD", "GH=ghp_PASSWORDPASSWORDPASSWORDPASSWORD",
				"PATH=/usr/local/bin:/usr/bin", "HOME=/home/u", "SITE=https://example.com/a@b", "CFLAGS=-DTOKEN=1 -O2",
				"PROXY=http://proxy.local:3128", "GOFLAGS=-mod=mod",
			},
			want: []string{
				"DATABASE_URL=postgres://app:***@db/x", "REDIS_URL=redis://:***@host:6379/0",
				"PG_DSN=host=db user=app password=*** sslmode=disable", "MSSQL=Server=db;Uid=app;Pwd=***;",
				"API_URL=https://api.example.com/v1?token=***&x=1", "HDR=Authorization: Bearer ***",
				"OPENAI=***", "GH=***",
				"PATH=/usr/local/bin:/usr/bin", "HOME=/home/u", "SITE=https://example.com/a@b", "CFLAGS=-DTOKEN=1 -O2",
				"PROXY=http://proxy.local:3128", "GOFLAGS=-mod=mod",
			},
		},
		{
			name: "shell start-up hooks dropped",
			env:  []string{"BASH_ENV=/tmp/x", "ENV=/tmp/y", "BASH_FUNC_ls%%=() { touch x; }", "SHELLOPTS=xtrace", "PS4=$(touch x)", "BASH=/bin/bash", "LANG=C"},
			want: []string{"BASH=/bin/bash", "LANG=C"},
		},
		{
			name: "entry without equals sign judged by its name",
			env:  []string{"SESSION_TOKEN", "PLAIN"},
			want: []string{"PLAIN"},
		},
		{
			name: "empty",
			env:  nil,
			want: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.env)
			got := ScrubEnv(tt.env, tt.extra...)
			if !slices.Equal(got, tt.want) {
				t.Errorf("ScrubEnv(%q) = %q; want %q", tt.env, got, tt.want)
			}
			if !slices.Equal(in, tt.env) {
				t.Errorf("ScrubEnv modified its input: got %q; want %q", tt.env, in)
			}
		})
	}
}

// TestIsSecretName is the table of names: credentials by any of their
// usual names go, ordinary variables that share a word with them stay.
func TestIsSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		// Credentials.
		"OPENAI_API_KEY": true, "ANTHROPIC_API_KEY": true, "apikey": true, "GITHUB_TOKEN": true,
		"AWS_SESSION_TOKEN": true, "AWS_SECRET_ACCESS_KEY": true, "DB_PASSWORD": true, "PGPASSWORD": true,
		"NPM_CONFIG__AUTH": true, "npm_config__auth": true, "LLM_AUTH": true, "DOCKER_AUTH_CONFIG": true,
		"GOOGLE_CREDENTIALS": true, "GOOGLE_APPLICATION_CREDENTIALS": true, "AZURE_CREDENTIAL": true,
		"GITHUB_PAT": true, "GH_PAT": true, "FTP_PASSWD": true, "PASSWD": true, "SESSION_COOKIE": true,
		"COOKIE_JAR": true, "MYSQL_PWD": true, "HTTP_AUTH": true,
		// Ordinary names.
		"PATH": false, "HOME": false, "AUTHOR": false, "GIT_AUTHOR_NAME": false, "GIT_AUTHOR_EMAIL": false,
		"GIT_COMMITTER_NAME": false, "AUTH_DOMAIN": false, "AUTH_URL": false, "SSH_AUTH_SOCK": false,
		"OAUTH_CALLBACK_PORT": false, "PWD": false, "OLDPWD": false, "XDG_SESSION_ID": false,
		"XDG_SESSION_TYPE": false, "DBUS_SESSION_BUS_ADDRESS": false, "PATTERN": false, "COMPAT": false,
		"PASSENGER_ENV": false, "LANG": false, "DATABASE_URL": false, "EDITOR": false, "DOCKER_CONFIG": false,
	} {
		if got := IsSecretName(name); got != want {
			t.Errorf("IsSecretName(%q) = %v; want %v", name, got, want)
		}
	}
}

// TestScrubEnvDropsKnownValues: a credential myclaw holds leaves the
// environment whatever its variable is called, and is cut out of a longer
// value; short values are not matched.
func TestScrubEnvDropsKnownValues(t *testing.T) {
	const key = "llm-auth-value-4f9a2c"
	secret.Add(key, "short")
	env := []string{
		"LLM_CRED=" + key, "COPY=" + key + "\n", "HEADER=Authorization: Custom " + key + " v2",
		"NOTE=a short note", "PATH=/usr/bin",
	}
	want := []string{"HEADER=Authorization: Custom [redacted] v2", "NOTE=a short note", "PATH=/usr/bin"}
	if got := ScrubEnv(env); !slices.Equal(got, want) {
		t.Errorf("ScrubEnv(%q) = %q; want %q", env, got, want)
	}
}

func TestIsSharedName(t *testing.T) {
	for name, want := range map[string]bool{"PATH": true, "home": true, "LC_ALL": true, "XDG_CONFIG_HOME": true, "GH": false, "MY_PATH": false, "TOKEN": false} {
		if got := IsSharedName(name); got != want {
			t.Errorf("IsSharedName(%q) = %v; want %v", name, got, want)
		}
	}
}
