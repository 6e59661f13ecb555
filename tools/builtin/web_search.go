package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"myclaw/tools"
	"net/http"
	"net/url"
	"strings"
	"time"
)

//go:embed web_search.md
var webSearchDescription string

const (
	webSearchMaxResults = 10
	webSearchMaxQuery   = 500
)

type webSearch struct {
	endpoint *url.URL
	badURL   string // the configured endpoint when it is unusable
	opts     WebOptions
	client   *http.Client
	meta     tools.Meta
}

// NewWebSearch returns the web_search tool, which queries the SearXNG JSON
// API at endpoint (the full search URL, e.g. "http://localhost:8888/search";
// the query goes in q and format=json is added). The endpoint is configured
// by the user and may be local, so it is reached with an ordinary client;
// what it returns is untrusted. An unusable endpoint makes every call fail
// with a message for the user.
func NewWebSearch(endpoint string, opts WebOptions) tools.Tool {
	opts = opts.withDefaults()
	s := &webSearch{opts: opts}
	u, err := url.Parse(strings.TrimSpace(endpoint))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		s.badURL = endpoint
	} else {
		s.endpoint = u
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	s.client = &http.Client{Transport: tr, Timeout: opts.Timeout}
	s.meta = tools.Meta{
		Name:        "web_search",
		Description: strings.TrimSpace(webSearchDescription),
		Schema: json.RawMessage(fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": %d, "description": "What to search for, as you would type it into a search engine."}
  },
  "required": ["query"],
  "additionalProperties": false
}`, webSearchMaxQuery)),
		ReadOnly:         true,
		Risk:             tools.RiskLow,
		ReturnsUntrusted: true,
		Idempotent:       true,
		Capability:       "net:search",
		Timeout:          opts.Timeout + 10*time.Second,
		Source:           tools.SourceBuiltin,
	}
	return s
}

// Meta implements Tool.
func (s *webSearch) Meta() tools.Meta { return s.meta }

// DryRun implements Tool; the search has no side effect, so it runs.
func (s *webSearch) DryRun(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	return s.Execute(ctx, raw)
}

// searxResponse is the part of SearXNG's JSON answer that is used.
type searxResponse struct {
	Query           string            `json:"query"`
	NumberOfResults float64           `json:"number_of_results"`
	Results         []searxResult     `json:"results"`
	Answers         []json.RawMessage `json:"answers"`
	Suggestions     []string          `json:"suggestions"`
}

type searxResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Content string `json:"content"`
}

// webSearchOutput is what the model reads besides the result list.
type webSearchOutput struct {
	Query        string `json:"query"`
	ResultsShown int    `json:"results_shown"`
	ResultsTotal int    `json:"results_total"`
	Note         string `json:"note,omitempty"`
}

// Execute implements Tool.
func (s *webSearch) Execute(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, `Send {"query": "..."}.`, "arguments are not valid: %v", err)
	}
	q := strings.Join(strings.Fields(a.Query), " ")
	if q == "" {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, "Send the words to search for in \"query\".", "query is empty")
	}
	if s.endpoint == nil {
		return tools.Result{}, tools.Errorf(tools.KindUnsupported, "Web search is misconfigured; tell the user to set search_url in the [web] section of the config to a SearXNG search URL.",
			"the configured search endpoint %q is not an http(s) URL", tools.ClipOneLine(s.badURL, 200))
	}
	u := *s.endpoint
	v := u.Query()
	v.Set("q", q)
	v.Set("format", "json")
	u.RawQuery = v.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return tools.Result{}, fmt.Errorf("build search request: %w", err)
	}
	req.Header.Set("User-Agent", s.opts.UserAgent)
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return tools.Result{}, ctx.Err()
		}
		return tools.Result{}, s.unreachable(err)
	}
	defer resp.Body.Close()
	if err := s.statusError(resp); err != nil {
		return tools.Result{}, err
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, s.opts.MaxBytes+1))
	if err != nil {
		return tools.Result{}, s.unreachable(err)
	}
	if int64(len(data)) > s.opts.MaxBytes {
		return tools.Result{}, tools.Errorf(tools.KindExternalError, "The search service answered with too much data; try a narrower query.", "the search answer is larger than %s", tools.HumanSize(s.opts.MaxBytes))
	}
	var sr searxResponse
	if err := json.Unmarshal(data, &sr); err != nil {
		return tools.Result{}, tools.Errorf(tools.KindExternalError, "The search service did not answer in SearXNG's JSON format; tell the user to check search_url in the [web] section of the config.",
			"the search answer is not SearXNG JSON: %v", err)
	}

	var b strings.Builder
	shown := 0
	for _, r := range sr.Results {
		if shown == webSearchMaxResults {
			break
		}
		if strings.TrimSpace(r.URL) == "" {
			continue
		}
		shown++
		title := tools.ClipOneLine(r.Title, 200)
		if title == "" {
			title = "(untitled)"
		}
		fmt.Fprintf(&b, "%d. %s\n   %s\n", shown, title, tools.ClipOneLine(r.URL, 500))
		if c := tools.ClipOneLine(r.Content, 400); c != "" {
			fmt.Fprintf(&b, "   %s\n", c)
		}
	}
	if len(sr.Suggestions) > 0 {
		sugg := sr.Suggestions[:min(len(sr.Suggestions), 5)]
		for i := range sugg {
			sugg[i] = tools.ClipOneLine(sugg[i], 100)
		}
		fmt.Fprintf(&b, "\nRelated searches: %s\n", strings.Join(sugg, "; "))
	}
	withURL := 0
	for _, r := range sr.Results {
		if strings.TrimSpace(r.URL) != "" {
			withURL++
		}
	}
	out := webSearchOutput{Query: q, ResultsShown: shown, ResultsTotal: max(withURL, int(sr.NumberOfResults))}
	switch {
	case shown == 0:
		out.Note = "no results; try other words, fewer words, or English"
		b.WriteString("(no results)\n")
	case withURL > shown:
		out.Note = fmt.Sprintf("shown the first %d of %d results; refine the query to see others", shown, withURL)
	}
	return tools.Result{
		Output:     out,
		Body:       b.String(),
		Source:     "web:search:" + tools.ClipOneLine(q, 100),
		Summary:    fmt.Sprintf("Searched the web for %q: %d results", tools.ClipOneLine(q, 60), shown),
		Capability: "net:search",
	}, nil
}

func (s *webSearch) unreachable(err error) *tools.Error {
	host := s.endpoint.Host
	if netIsTimeout(err) {
		return tools.Errorf(tools.KindNetworkError, "The search service is slow; retry once, or go on without searching.", "the search service at %s did not answer within %s", host, s.opts.Timeout)
	}
	var ue *url.Error
	msg := err.Error()
	if errors.As(err, &ue) {
		msg = ue.Err.Error()
	}
	return tools.Errorf(tools.KindNetworkError, "The search service is down; tell the user web search is unavailable, or go on without it.", "the search service at %s could not be reached: %s", host, msg)
}

func (s *webSearch) statusError(resp *http.Response) *tools.Error {
	code := resp.StatusCode
	if code >= 200 && code < 300 {
		return nil
	}
	host := s.endpoint.Host
	switch {
	case code == http.StatusForbidden:
		return tools.Errorf(tools.KindExternalError, "The SearXNG instance refuses JSON; tell the user to enable the json format (search.formats in its settings.yml).",
			"the search service at %s refused the request (HTTP 403)", host).With("status", code)
	case code == http.StatusTooManyRequests:
		return tools.Errorf(tools.KindQuotaExceeded, "The search service is rate limiting; wait before searching again.",
			"the search service at %s is rate limiting (HTTP 429)", host).With("status", code)
	case code >= 500:
		return tools.Errorf(tools.KindNetworkError, "The search service failed; retry once later or go on without searching.",
			"the search service at %s failed (HTTP %d)", host, code).With("status", code)
	}
	return tools.Errorf(tools.KindExternalError, "The search request was refused; tell the user to check search_url in the [web] section of the config.",
		"the search service at %s answered HTTP %d", host, code).With("status", code)
}
