package builtin

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"myclaw/tools"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html/charset"
)

//go:embed web_fetch.md
var webFetchDescription string

// webBodyCap bounds the text handed to the model.
const webBodyCap = 50 << 10

type webFetch struct {
	opts   WebOptions
	guard  *netGuard
	client *http.Client
	meta   tools.Meta
}

type webFetchArgs struct {
	URL      string `json:"url"`
	MaxBytes *int64 `json:"max_bytes"`
}

// NewWebFetch returns the web_fetch tool: an HTTP GET through the
// address-checking client of its netGuard, with HTML turned into readable
// text.
func NewWebFetch(opts WebOptions) tools.Tool {
	opts = opts.withDefaults()
	g := newNetGuard(opts.AllowPrivateHosts)
	schema := fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "url": {"type": "string", "minLength": 1, "maxLength": 4096, "description": "The http or https URL to fetch."},
    "max_bytes": {"type": "integer", "minimum": 1, "description": "Stop downloading after this many bytes (capped at %d)."}
  },
  "required": ["url"],
  "additionalProperties": false
}`, opts.MaxBytes)
	return &webFetch{opts: opts, guard: g, client: g.client(opts), meta: tools.Meta{
		Name:             "web_fetch",
		Description:      strings.TrimSpace(webFetchDescription),
		Schema:           json.RawMessage(schema),
		Risk:             tools.RiskLow,
		ReturnsUntrusted: true,
		Idempotent:       true,
		SupportsDryRun:   true,
		Capability:       "net:http",
		Timeout:          opts.Timeout + 10*time.Second,
		Source:           tools.SourceBuiltin,
	}}
}

// Meta implements Tool.
func (w *webFetch) Meta() tools.Meta { return w.meta }

func (w *webFetch) parse(raw json.RawMessage) (*url.URL, int64, error) {
	var a webFetchArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, 0, tools.Errorf(tools.KindInvalidArgs, `Send {"url": "https://..."} with an optional integer max_bytes.`, "arguments are not valid: %v", err)
	}
	s := strings.TrimSpace(a.URL)
	u, err := url.Parse(s)
	if err != nil || s == "" {
		return nil, 0, tools.Errorf(tools.KindInvalidArgs, "Give a full URL such as https://example.com/page.", "%q is not a valid URL", tools.ClipOneLine(a.URL, 200))
	}
	if sc := strings.ToLower(u.Scheme); sc != "http" && sc != "https" && sc != "" {
		// A bad argument, whatever the letter case: nothing was refused,
		// the tool only speaks HTTP.
		hint := "Only http and https URLs can be fetched."
		if sc == "file" {
			hint = "web_fetch reads only http and https URLs; use fs_read for files inside the workspace."
		}
		return nil, 0, tools.Errorf(tools.KindInvalidArgs, hint, "the %s: scheme is not supported", tools.ClipOneLine(sc, 40)).With("url", tools.ClipOneLine(u.Redacted(), 200))
	}
	if terr := w.guard.checkURL(u); terr != nil {
		return nil, 0, terr
	}
	limit := w.opts.MaxBytes
	if a.MaxBytes != nil {
		if *a.MaxBytes < 1 {
			return nil, 0, tools.Errorf(tools.KindInvalidArgs, "Use a positive max_bytes, or leave it out.", "max_bytes %d must be at least 1", *a.MaxBytes)
		}
		limit = min(limit, *a.MaxBytes)
	}
	return u, limit, nil
}

// webShortURL is scheme://host/path, for summaries.
func webShortURL(u *url.URL) string {
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	return strings.ToLower(u.Scheme) + "://" + u.Host + path
}

// webSource names a page for the fence: web:host/path.
func webSource(u *url.URL) string {
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	return "web:" + u.Host + path
}

// DryRun implements Tool. It checks the URL without touching the network.
func (w *webFetch) DryRun(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	u, limit, err := w.parse(raw)
	if err != nil {
		return tools.Result{}, err
	}
	host := strings.ToLower(u.Hostname())
	return tools.Result{
		Summary: "Fetch " + tools.ClipOneLine(webShortURL(u), 100),
		Preview: fmt.Sprintf("GET %s\nhost: %s\nup to %s, timeout %s",
			tools.ClipOneLine(u.Redacted(), 1000), host, tools.HumanSize(limit), w.opts.Timeout),
		Capability: "net:http:" + host,
		Source:     webSource(u),
	}, nil
}

// webFetchOutput is what the model reads besides the page text. The page
// title is part of the fenced text, not a field: it comes from the page.
type webFetchOutput struct {
	URL         string `json:"url"`
	Status      int    `json:"status"`
	ContentType string `json:"content_type"`
	SizeBytes   int64  `json:"size_bytes"`
	Truncated   bool   `json:"truncated"`
	TextBytes   int    `json:"text_bytes"`
	Note        string `json:"note,omitempty"`
}

// Execute implements Tool.
func (w *webFetch) Execute(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	u, limit, err := w.parse(raw)
	if err != nil {
		return tools.Result{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, "Give a full URL such as https://example.com/page.", "cannot request %q: %v", tools.ClipOneLine(u.Redacted(), 200), err)
	}
	req.Header.Set("User-Agent", w.opts.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,text/markdown;q=0.9,application/json;q=0.9,*/*;q=0.1")
	resp, err := w.client.Do(req)
	if err != nil {
		return tools.Result{}, netFetchError(ctx, err, u, w.opts.Timeout)
	}
	defer resp.Body.Close()
	final := resp.Request.URL
	if err := webStatusError(resp, final); err != nil {
		return tools.Result{}, err
	}

	ctHeader := resp.Header.Get("Content-Type")
	mediaType, params, _ := mime.ParseMediaType(ctHeader)
	mediaType = strings.ToLower(mediaType)
	kind := webContentKind(mediaType)
	if kind == webBinary {
		return tools.Result{}, webUnsupported(mediaType, final)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return tools.Result{}, netFetchError(ctx, err, u, w.opts.Timeout)
	}
	truncated := int64(len(data)) > limit
	if truncated {
		data = data[:limit]
	}
	size := int64(len(data))
	if kind == webUnknown {
		mediaType, _, _ = mime.ParseMediaType(http.DetectContentType(data))
		if kind = webContentKind(mediaType); kind != webHTML && kind != webText {
			return tools.Result{}, webUnsupported(mediaType, final)
		}
	}
	if bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
		return tools.Result{}, webUnsupported(mediaType+" holding binary data", final)
	}

	var title, text string
	if kind == webHTML {
		enc, _, _ := charset.DetermineEncoding(data, ctHeader)
		if decoded, err := enc.NewDecoder().Bytes(data); err == nil {
			data = decoded
		}
		title, text = htmlReadable(data, final)
	} else {
		if label := params["charset"]; label != "" && !strings.EqualFold(label, "utf-8") {
			if enc, _ := charset.Lookup(label); enc != nil {
				if decoded, err := enc.NewDecoder().Bytes(data); err == nil {
					data = decoded
				}
			}
		}
		text = string(data)
	}

	var notes []string
	if truncated {
		notes = append(notes, fmt.Sprintf("download stopped at %s (the size cap); the rest of the resource was not read", tools.HumanSize(limit)))
	}
	body := text
	if title != "" {
		body = "# " + title + "\n\n" + text
	}
	if len(body) > webBodyCap {
		cut := tools.CutUTF8(body, webBodyCap)
		notes = append(notes, fmt.Sprintf("shown first %s of %s of text; fetch a more specific page for the rest", tools.HumanSize(int64(len(cut))), tools.HumanSize(int64(len(body)))))
		body = cut
	}
	out := webFetchOutput{
		URL:         final.Redacted(),
		Status:      resp.StatusCode,
		ContentType: tools.ClipOneLine(mediaType, 100),
		SizeBytes:   size,
		Truncated:   truncated,
		TextBytes:   len(body),
		Note:        strings.Join(notes, ". "),
	}
	return tools.Result{
		Output:     out,
		Body:       body,
		Source:     webSource(final),
		Summary:    fmt.Sprintf("Fetched %s (%s)", tools.ClipOneLine(webShortURL(final), 100), tools.HumanSize(out.SizeBytes)),
		Capability: "net:http:" + strings.ToLower(final.Hostname()),
	}, nil
}

type webKind int

const (
	webUnknown webKind = iota
	webHTML
	webText
	webBinary
)

// webContentKind sorts a media type into what web_fetch can read.
func webContentKind(mediaType string) webKind {
	switch {
	case mediaType == "":
		return webUnknown
	case mediaType == "text/html", mediaType == "application/xhtml+xml":
		return webHTML
	case strings.HasPrefix(mediaType, "text/"),
		strings.HasSuffix(mediaType, "+json"), strings.HasSuffix(mediaType, "+xml"):
		return webText
	}
	switch mediaType {
	case "application/json", "application/xml", "application/javascript", "application/ecmascript",
		"application/x-javascript", "application/yaml", "application/x-yaml", "application/toml",
		"application/x-sh", "application/x-shellscript", "application/sql", "application/graphql",
		"application/x-ndjson", "application/jsonl", "application/csv", "application/markdown":
		return webText
	case "application/octet-stream", "binary/octet-stream":
		return webUnknown
	}
	return webBinary
}

func webUnsupported(mediaType string, u *url.URL) *tools.Error {
	return tools.Errorf(tools.KindUnsupported,
		"web_fetch reads text: HTML pages, plain text, JSON, XML, markdown. For this resource, tell the user the URL or find a text version (an HTML page about it).",
		"%s serves %s, which is not text", tools.ClipOneLine(webShortURL(u), 200), tools.ClipOneLine(mediaType, 100)).With("content_type", tools.ClipOneLine(mediaType, 100))
}

// webStatusError maps an HTTP failure to the model's error kinds: the
// server's 4xx answer is an external error, a 5xx a network error.
func webStatusError(resp *http.Response, u *url.URL) error {
	code := resp.StatusCode
	if code >= 200 && code < 300 {
		return nil
	}
	host := u.Hostname()
	// The code's standard phrase, not the server's: the error reaches the
	// model outside any fence.
	status := strings.TrimSpace(fmt.Sprintf("%d %s", code, http.StatusText(code)))
	var kind tools.Kind
	var hint string
	switch {
	case code == http.StatusNotFound || code == http.StatusGone:
		kind, hint = tools.KindExternalError, "The page does not exist. Check the URL for typos, or search for the page; do not guess further URLs at random."
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		kind, hint = tools.KindExternalError, "The page needs a login or refuses automated clients. Do not retry; try another source or ask the user to paste the content."
	case code == http.StatusTooManyRequests:
		kind, hint = tools.KindExternalError, "The server is rate limiting. Wait before retrying, or use another source."
	case code >= 400 && code < 500:
		kind, hint = tools.KindExternalError, "The server refused the request. Check the URL; try another source."
	case code >= 500:
		kind, hint = tools.KindNetworkError, "The server failed. Retry once later, or use another source."
	default:
		kind, hint = tools.KindExternalError, "The server gave no content for this URL. Try another URL."
	}
	return tools.Errorf(kind, hint, "HTTP %s from %s", tools.ClipOneLine(status, 80), host).With("status", code).With("url", u.Redacted())
}
