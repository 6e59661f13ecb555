package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"myclaw/agent/chat"
)

// Models lists the models the server offers. A call made while the server
// check (or another call) is asking shares its answer.
func (a *Agent) Models(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return a.listModels(ctx)
}

// CheckServer checks that the model server answers and knows the model.
// A server that cannot list models is given the benefit of the doubt.
// When it passes, the model's window is asked for too, so that the status
// shows the server's figure before the first turn (the turn would ask).
func (a *Agent) CheckServer(ctx context.Context) error {
	err := a.checkServer(ctx)
	if err == nil {
		a.ensureWindow(ctx)
	}
	return err
}

func (a *Agent) checkServer(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	models, err := a.listModels(ctx)
	model := a.Model()
	var apiErr *chat.APIError
	answered := err == nil || (errors.As(err, &apiErr) && apiErr.Status != 0)
	a.down.Store(!answered && ctx.Err() == nil)
	if err != nil {
		if answered && apiErr.Status != 401 && apiErr.Status != 403 {
			return nil // answers, but has no usable /models
		}
		if answered {
			return &UserError{
				Msg:  fmt.Sprintf("The model server at %s refused the API key.", a.opts.Client.BaseURL()),
				Hint: hintOf(err, ""),
				Err:  err,
			}
		}
		// The next step for the likely case, naming only the setting that
		// chose the URL.
		return &UserError{Msg: fmt.Sprintf("No model server at %s.", a.opts.Client.BaseURL()), Hint: a.noServerHint(), Err: err}
	}
	if model == "" {
		return &UserError{
			Msg:  "No model is configured.",
			Hint: fmt.Sprintf("Pass --model NAME or set model in %s. The server offers: %s.", a.configName(), listOrNone(models)),
		}
	}
	for _, m := range models {
		if m == model || strings.TrimSuffix(m, ":latest") == model {
			return nil
		}
	}
	if len(models) == 0 {
		return nil
	}
	return &UserError{
		Msg:  fmt.Sprintf("The server at %s has no model %q.", a.opts.Client.BaseURL(), model),
		Hint: fmt.Sprintf("Pass --model NAME or set model in %s. The server offers: %s.", a.configName(), listOrNone(models)),
	}
}

// noServerHint is the next step when the server does not answer, for the
// likely case: the default local Ollama, or the setting that chose the URL.
func (a *Agent) noServerHint() string {
	switch origin := a.opts.BaseURLOrigin; {
	case origin == "OPENAI_BASE_URL":
		return "Start the server OPENAI_BASE_URL points at, or point OPENAI_BASE_URL at one that runs."
	case strings.HasPrefix(a.opts.Client.BaseURL(), "http://localhost:11434"):
		return "Start Ollama (ollama serve, then ollama pull qwen2.5-coder:7b), or set base_url in the config; see config.example.toml for llama.cpp, vLLM, LM Studio, OpenRouter."
	case origin != "":
		return "Start the server, or change " + origin + "."
	}
	return "Start the server, or point OPENAI_BASE_URL (or base_url in the config) at one that runs."
}

func (a *Agent) configName() string {
	if a.opts.ConfigPath != "" {
		return a.opts.ConfigPath
	}
	return "the config"
}

func listOrNone(items []string) string {
	if len(items) == 0 {
		return "no models"
	}
	if len(items) > 12 {
		return strings.Join(items[:12], ", ") + fmt.Sprintf(" and %d more", len(items)-12)
	}
	return strings.Join(items, ", ")
}

// hintOf returns the hint an error carries, or fallback.
func hintOf(err error, fallback string) string {
	var apiErr *chat.APIError
	if errors.As(err, &apiErr) {
		if h := apiErr.Hint(); h != "" {
			return h
		}
	}
	var ue *UserError
	if errors.As(err, &ue) && ue.Hint != "" {
		return ue.Hint
	}
	return fallback
}
