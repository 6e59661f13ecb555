package proc

import (
	"slices"
	"testing"
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
			env:   []string{"PATH=/bin", "ANTHROPIC_AUTH=a", "Private_Stuff=b", "LANG=C"},
			extra: []string{"anthropic_auth", "PRIVATE_STUFF"},
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
