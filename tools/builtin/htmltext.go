package builtin

import (
	"bytes"
	"net/url"
	"strings"

	readability "codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlMaxElems bounds the elements readability scores; a bigger page goes
// straight to the plain extraction, which is linear.
const htmlMaxElems = 50000

// htmlReadable returns the title and the readable text of an HTML document:
// the main article as found by readability, or, when it finds none or much
// less than the page holds, all visible text of the page.
func htmlReadable(doc []byte, page *url.URL) (title, text string) {
	root, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		// html.Parse accepts any input; an error means the reader failed.
		return "", string(doc)
	}
	plain := htmlCleanText(htmlPlainText(root))
	title = htmlTitle(root)

	// The plain text and the title are taken, so readability may work on
	// the tree itself rather than on a deep copy of it.
	p := readability.NewParser()
	p.MaxElemsToParse = htmlMaxElems
	article, err := p.ParseAndMutate(root, page)
	if err != nil || article.Node == nil {
		return title, plain
	}
	var b strings.Builder
	if article.RenderText(&b) != nil {
		return title, plain
	}
	main := htmlCleanText(b.String())
	if t := strings.TrimSpace(article.Title()); t != "" {
		title = t
	}
	// Readability keeps one article; on index and listing pages that is a
	// fragment of what the page shows.
	if main == "" || (len(main) < 500 && len(plain) > 3*len(main)) {
		return title, plain
	}
	return title, main
}

// htmlTitle returns the text of the document's <title>.
func htmlTitle(root *html.Node) string {
	var title string
	var walk func(*html.Node) bool
	walk = func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == atom.Title {
			var b strings.Builder
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.TextNode {
					b.WriteString(c.Data)
				}
			}
			title = strings.Join(strings.Fields(b.String()), " ")
			return true
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Svg {
			return false // an SVG <title> is not the page's
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if walk(c) {
				return true
			}
		}
		return false
	}
	walk(root)
	return title
}

// htmlSkipped holds elements whose content is not visible text.
var htmlSkipped = map[atom.Atom]bool{
	atom.Head: true, atom.Script: true, atom.Style: true, atom.Noscript: true,
	atom.Template: true, atom.Svg: true, atom.Math: true, atom.Iframe: true,
	atom.Object: true, atom.Canvas: true, atom.Select: true, atom.Button: true,
}

// htmlBlocks holds elements that start a new line; htmlParagraphs, those
// set off by a blank line.
var (
	htmlBlocks = map[atom.Atom]bool{
		atom.Address: true, atom.Article: true, atom.Aside: true, atom.Dd: true,
		atom.Div: true, atom.Dt: true, atom.Fieldset: true, atom.Figcaption: true,
		atom.Figure: true, atom.Footer: true, atom.Form: true, atom.Header: true,
		atom.Hr: true, atom.Li: true, atom.Main: true, atom.Nav: true,
		atom.Section: true, atom.Tr: true, atom.Details: true, atom.Summary: true,
		atom.Caption: true,
	}
	htmlParagraphs = map[atom.Atom]bool{
		atom.P: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true,
		atom.H5: true, atom.H6: true, atom.Pre: true, atom.Blockquote: true,
		atom.Table: true, atom.Ul: true, atom.Ol: true, atom.Dl: true,
	}
)

// htmlPlainText extracts the visible text of a document, one block per line,
// tabs between table cells and "- " before list items.
func htmlPlainText(root *html.Node) string {
	var b strings.Builder
	newlines := 1 // newlines ending the text so far; the start counts as one
	write := func(s string) {
		if s == "" {
			return
		}
		b.WriteString(s)
		if t := strings.TrimRight(s, "\n"); t == "" {
			newlines += len(s)
		} else {
			newlines = len(s) - len(t)
		}
	}
	breakTo := func(n int) {
		for newlines < n {
			write("\n")
		}
	}
	space := func() {
		if newlines == 0 && !strings.HasSuffix(b.String(), " ") && !strings.HasSuffix(b.String(), "\t") {
			write(" ")
		}
	}
	var walk func(n *html.Node, pre bool)
	walk = func(n *html.Node, pre bool) {
		switch n.Type {
		case html.TextNode:
			if pre {
				write(n.Data)
				return
			}
			words := strings.Fields(n.Data)
			if len(words) == 0 {
				if n.Data != "" {
					space()
				}
				return
			}
			if strings.TrimLeft(n.Data, " \t\r\n\f") != n.Data {
				space()
			}
			write(strings.Join(words, " "))
			if strings.TrimRight(n.Data, " \t\r\n\f") != n.Data {
				space()
			}
			return
		case html.CommentNode, html.DoctypeNode:
			return
		case html.ElementNode:
			switch {
			case htmlSkipped[n.DataAtom]:
				return
			case n.DataAtom == atom.Br:
				write("\n")
				return
			case htmlParagraphs[n.DataAtom]:
				breakTo(2)
			case htmlBlocks[n.DataAtom]:
				breakTo(1)
			}
			switch n.DataAtom {
			case atom.Pre:
				pre = true
			case atom.Li:
				write("- ")
			case atom.Td, atom.Th:
				if newlines == 0 {
					write("\t")
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, pre)
		}
		if n.Type == html.ElementNode {
			switch {
			case htmlParagraphs[n.DataAtom]:
				breakTo(2)
			case htmlBlocks[n.DataAtom]:
				breakTo(1)
			}
		}
	}
	walk(root, false)
	return b.String()
}

// htmlCleanText trims every line and keeps at most one blank line in a row.
func htmlCleanText(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	out := make([]string, 0, len(lines))
	blank := true // drops leading blank lines
	for _, l := range lines {
		l = strings.TrimRight(l, " \t\u00a0")
		if strings.TrimSpace(l) == "" {
			if !blank {
				out = append(out, "")
			}
			blank = true
			continue
		}
		blank = false
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}
