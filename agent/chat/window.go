package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Window is a model's context window as the server serves it.
type Window struct {
	Tokens int
	// Server names the kind of server that said so ("Ollama", "llama.cpp",
	// "vLLM", "LM Studio", "OpenRouter"); empty when none did.
	Server string
	// Source says where Tokens came from, for /context and the status line:
	// "Ollama /api/ps", "config", "estimated" …
	Source string
}

// Estimated reports whether no server or config gave the window.
func (w Window) Estimated() bool { return w.Source == "" || w.Source == SourceEstimated }

// SourceEstimated is the Source of a window nobody reported.
const SourceEstimated = "estimated"

// probeTimeout bounds each probe: a server that does not know the endpoint
// answers at once, and the probes run before the first request only.
const probeTimeout = 3 * time.Second

// probeMaxBytes caps what a probe reads.
const probeMaxBytes = 4 << 20

// OllamaDefaultWindow is what Ollama serves when neither the model's
// parameters nor the server's OLLAMA_CONTEXT_LENGTH set num_ctx.
const OllamaDefaultWindow = 4096

// ProbeWindow asks the server what context window it serves for model:
// vLLM's max_model_len and OpenRouter's context_length in the model list,
// Ollama's loaded context_length (/api/ps) or num_ctx (/api/show),
// llama.cpp's n_ctx (/props) and LM Studio's loaded_context_length
// (/api/v0/models). The probes run at once, since they sit before the first
// request; the answer is the one asking them in that order would give: the
// first probe that answers, once every probe before it found nothing. Tokens
// is 0 when none answers.
func (c *Client) ProbeWindow(ctx context.Context, model string) Window {
	if c.baseErr != nil {
		return Window{}
	}
	root := strings.TrimSuffix(strings.TrimSuffix(c.base, "/v1"), "/api")
	probes := c.windowProbes()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // the probes still running are not needed any more
	type answer struct {
		i int
		w Window
	}
	answers := make(chan answer, len(probes))
	for i, probe := range probes {
		go func() { answers <- answer{i, probe(ctx, root, model)} }()
	}
	got, done := make([]Window, len(probes)), make([]bool, len(probes))
	for range probes {
		var a answer
		select {
		case a = <-answers:
		case <-ctx.Done():
			return Window{}
		}
		got[a.i], done[a.i] = a.w, true
		for i := range probes {
			if !done[i] {
				break
			}
			if got[i].Tokens > 0 {
				return got[i]
			}
		}
	}
	return Window{}
}

type windowProbe func(context.Context, string, string) Window

// windowProbes are the probes in the order their answers win.
func (c *Client) windowProbes() []windowProbe {
	return []windowProbe{c.probeModelList, c.probeOllama, c.probeLlamaCpp, c.probeLMStudio}
}

// getJSON fetches url (POST with body when body is non-nil) into v.
func (c *Client) getJSON(ctx context.Context, url string, body any, v any) bool {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	method, rd := http.MethodGet, io.Reader(nil)
	if body != nil {
		b, _ := json.Marshal(body)
		method, rd = http.MethodPost, bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return false
	}
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, probeMaxBytes))
	return err == nil && json.Unmarshal(data, v) == nil
}

func (c *Client) probeModelList(ctx context.Context, _, model string) Window {
	var list struct {
		Data []struct {
			ID            string `json:"id"`
			MaxModelLen   int    `json:"max_model_len"`
			ContextLength int    `json:"context_length"`
			// Pricing is OpenRouter's own field: other servers that
			// report context_length are not named OpenRouter.
			Pricing json.RawMessage `json:"pricing"`
		} `json:"data"`
	}
	if !c.getJSON(ctx, c.base+"/models", nil, &list) {
		return Window{}
	}
	for _, m := range list.Data {
		switch {
		case m.ID != model:
		case m.MaxModelLen > 0:
			return Window{Tokens: m.MaxModelLen, Server: "vLLM", Source: "vLLM max_model_len"}
		case m.ContextLength > 0 && (len(m.Pricing) > 0 || strings.Contains(strings.ToLower(c.base), "openrouter.ai")):
			return Window{Tokens: m.ContextLength, Server: "OpenRouter", Source: "OpenRouter context_length"}
		case m.ContextLength > 0:
			return Window{Tokens: m.ContextLength, Source: "context_length in the server's model list"}
		}
	}
	return Window{}
}

var numCtxRE = regexp.MustCompile(`(?m)^\s*num_ctx\s+(\d+)`)

func (c *Client) probeOllama(ctx context.Context, root, model string) Window {
	var show struct {
		Parameters string         `json:"parameters"`
		ModelInfo  map[string]any `json:"model_info"`
	}
	if !c.getJSON(ctx, root+"/api/show", map[string]string{"model": model}, &show) {
		return Window{}
	}
	var ps struct {
		Models []struct {
			Name          string `json:"name"`
			Model         string `json:"model"`
			ContextLength int    `json:"context_length"`
		} `json:"models"`
	}
	if c.getJSON(ctx, root+"/api/ps", nil, &ps) {
		for _, m := range ps.Models {
			if (m.Name == model || m.Model == model) && m.ContextLength > 0 {
				return Window{Tokens: m.ContextLength, Server: "Ollama", Source: "Ollama /api/ps (loaded)"}
			}
		}
	}
	if m := numCtxRE.FindStringSubmatch(show.Parameters); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
			return Window{Tokens: n, Server: "Ollama", Source: "Ollama num_ctx"}
		}
	}
	trained := 0
	for k, v := range show.ModelInfo {
		if f, ok := v.(float64); ok && strings.HasSuffix(k, ".context_length") {
			trained = int(f)
		}
	}
	src := "Ollama default (num_ctx not set)"
	if trained > 0 {
		src = fmt.Sprintf("Ollama default (num_ctx not set; the model knows %d)", trained)
	}
	return Window{Tokens: OllamaDefaultWindow, Server: "Ollama", Source: src}
}

func (c *Client) probeLlamaCpp(ctx context.Context, root, _ string) Window {
	var props struct {
		NCtx     int `json:"n_ctx"`
		Settings struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if !c.getJSON(ctx, root+"/props", nil, &props) {
		return Window{}
	}
	n := props.Settings.NCtx
	if n == 0 {
		n = props.NCtx
	}
	return Window{Tokens: n, Server: "llama.cpp", Source: "llama.cpp /props n_ctx"}
}

func (c *Client) probeLMStudio(ctx context.Context, root, model string) Window {
	var list struct {
		Data []struct {
			ID           string `json:"id"`
			Loaded       int    `json:"loaded_context_length"`
			MaxContext   int    `json:"max_context_length"`
			State        string `json:"state"`
			ModelPurpose string `json:"type"`
		} `json:"data"`
	}
	if !c.getJSON(ctx, root+"/api/v0/models", nil, &list) {
		return Window{}
	}
	for _, m := range list.Data {
		if m.ID != model {
			continue
		}
		if m.Loaded > 0 {
			return Window{Tokens: m.Loaded, Server: "LM Studio", Source: "LM Studio loaded_context_length"}
		}
		if m.MaxContext > 0 {
			return Window{Tokens: m.MaxContext, Server: "LM Studio", Source: "LM Studio max_context_length (not loaded yet)"}
		}
	}
	return Window{}
}
