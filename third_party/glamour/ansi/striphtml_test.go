package ansi

import (
	"testing"

	"github.com/microcosm-cc/bluemonday"
)

var htmlSamples = []string{
	"", "   \n", "plain text", "a < b && c > d", "&amp; &lt;tag&gt; &#39;q&#39; &unknown;",
	"<b>bold</b> and <i>italic</i>", "<div class=\"x\" onclick=\"evil()\">text</div>",
	"<script>alert('x')</script>after", "<style>p{color:red}</style>after",
	"<SCRIPT>a</SCRIPT>b", "<scr\u0130pt>c</scr\u0130pt>d", "<title>t</title>body",
	"<object><param>p</param>inside</object>out", "<iframe src=x>in</iframe>out",
	"<noscript><p>n</p></noscript>y", "<title><title>x</title>y</title>z", "</title>x<title>y",
	"<!-- comment -->text<!DOCTYPE html>", "<br/>line<br />line<img src=x onerror=y/>",
	"<p>unclosed <b>tags", "</p>stray end", "<a href=\"javascript:x\">link</a>",
	"<textarea><b>raw</b></textarea>", "<xmp><i>x</i></xmp>", "<plaintext><b>rest",
	"<![CDATA[data]]>", "<?php echo 1; ?>", "<details><summary>s</summary>body</details>",
	"text with \u00e9 and \u4e2d and emoji \U0001F600", "<span style=\"color:red\">styled</span>",
	"<script>unclosed", "<style>a</style><script>b</script><p>c</p>", "<<>>", "a<b", "<a",
}

// stripHTML is bluemonday's strict policy, sample for sample.
func TestStripHTMLIsBluemondayStrict(t *testing.T) {
	p := bluemonday.StrictPolicy()
	for _, s := range htmlSamples {
		if got, want := stripHTML(s), p.Sanitize(s); got != want {
			t.Errorf("stripHTML(%q) = %q, bluemonday's %q", s, got, want)
		}
	}
}

func FuzzStripHTMLIsBluemondayStrict(f *testing.F) {
	for _, s := range htmlSamples {
		f.Add(s)
	}
	p := bluemonday.StrictPolicy()
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := stripHTML(s), p.Sanitize(s); got != want {
			t.Errorf("stripHTML(%q) = %q, bluemonday's %q", s, got, want)
		}
	})
}
