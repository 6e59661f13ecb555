package tools

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
