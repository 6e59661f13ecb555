package ansi

import (
	"slices"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/charmbracelet/glamour/internal/lexers"
)

// streamSamples are code blocks as models write them, with what carries
// state across lines: docstrings, multi-line strings, template literals,
// heredocs, nested languages.
var streamSamples = map[string]string{
	"go":         "package main\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\n// Cache keeps values.\ntype Cache struct {\n\tmu    sync.Mutex\n\titems map[string]*entry\n}\n\nfunc (c *Cache) Get(key string) (string, bool) {\n\tc.mu.Lock()\n\tdefer c.mu.Unlock()\n\ts := `raw\nstring over\nlines`\n\tfmt.Println(s, 42, 'x', 3.5e-2) // done\n\treturn strings.TrimSpace(s), true\n}\n",
	"python":     "import os\n\n\nclass Cache:\n    \"\"\"Keeps values.\n\n    A docstring over lines, with def and class in it.\n    \"\"\"\n\n    def get(self, key: str) -> str:\n        '''Another one\n        over two lines.'''\n        s = f\"{key!r} = {self.items[key]:>10}\"\n        return s  # done\n\n\n@decorator(x=1)\ndef main():\n    print(Cache().get(\"a\"), 0x1F, 1_000)\n",
	"javascript": "const x = `template\nover ${lines} and\nmore`;\nfunction f(a, b) {\n  // comment\n  return a.map((v) => v * 2).filter(Boolean);\n}\nclass A extends B {\n  constructor() { super(); this.re = /ab+c/gi; }\n}\n",
	"bash":       "#!/bin/bash\nset -euo pipefail\nfor f in *.go; do\n  echo \"file: $f\" | tr a-z A-Z\ndone\ncat <<EOF\nheredoc $HOME\nlines\nEOF\nif [[ -n \"${X:-}\" ]]; then exit 1; fi\n",
	"rust":       "fn main() {\n    let s = r#\"raw\nstring\"#;\n    let v: Vec<u32> = (0..10).map(|x| x * 2).collect();\n    println!(\"{} {:?}\", s, v); // done\n}\n",
	"yaml":       "name: ci\non:\n  push:\n    branches: [main]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: |\n          go test ./...\n          go vet ./...\n",
	"html":       "<!doctype html>\n<html>\n<head>\n<style>\nbody { color: red; }\n</style>\n<script>\nconst a = 1;\nfunction f() { return a; }\n</script>\n</head>\n<body><p class=\"x\">Hi</p></body>\n</html>\n",
	"diff":       "--- a/x.go\n+++ b/x.go\n@@ -1,3 +1,3 @@\n-old line\n+new line\n context\n",
	"json":       "{\n  \"name\": \"x\",\n  \"list\": [1, 2.5, true, null],\n  \"nested\": {\"a\": \"b\"}\n}\n",
	"c":          "#include <stdio.h>\n#define N 10\n\nint main(void) {\n    char *s = \"a\\n\";\n    for (int i = 0; i < N; i++) printf(\"%d\\n\", i); // loop\n    return 0;\n}\n",
}

// wholeTokens is what chroma.Coalesce(l) gives for source.
func wholeTokens(t *testing.T, l chroma.Lexer, source string) []chroma.Token {
	t.Helper()
	it, err := chroma.Coalesce(l).Tokenise(nil, source)
	if err != nil {
		t.Fatal(err)
	}
	return it.Tokens()
}

// laterLines are the samples where a later line changes the tokens of
// earlier ones: one pattern matches a Go raw string, a heredoc, an HTML
// style element whole once its end arrives.
var laterLines = map[string]bool{"go": true, "bash": true, "html": true}

// A code block streamed a few bytes at a time is lexed, at every step,
// into exactly the tokens chroma gives for the whole of it, and most
// steps are taken up from a line start, not lexed whole. Where a later
// line changes earlier ones, the tokens are chroma's again within
// wholeEvery steps.
func TestStreamedLexingIsChromas(t *testing.T) {
	for lang, sample := range streamSamples {
		t.Run(lang, func(t *testing.T) {
			l := lexers.Get(lang)
			if l == nil {
				t.Fatalf("no lexer for %s", lang)
			}
			var cache lexCache
			steps, stale, differed := 0, 0, false
			for end := 0; end < len(sample); steps++ {
				end = min(len(sample), end+1+steps%7)
				src := sample[:end]
				raw, ok := cache.tokens(l.(*chroma.RegexLexer), src)
				if !ok {
					t.Fatalf("%s cannot be lexed on", lang)
				}
				got, want := coalesced(raw).Tokens(), wholeTokens(t, l, src)
				if slices.Equal(got, want) {
					stale = 0
					continue
				}
				stale++
				differed = true
				if !laterLines[lang] || stale >= wholeEvery {
					t.Fatalf("after %q (%d steps unlike chroma's):\n got %v\nwant %v", src, stale, got, want)
				}
			}
			if laterLines[lang] && !differed {
				t.Errorf("no step differed: the sample no longer shows a later line changing earlier ones")
			}
			if cache.resumed < steps/2 {
				t.Errorf("taken up %d times in %d steps", cache.resumed, steps)
			}
		})
	}
}
