package agent

import (
	"context"
	"fmt"
	"myclaw/agent/chat"
)

// windowFix says how to give the model a larger window on a kind of server.
func windowFix(server string, want int) string {
	want = max(want, 32768)
	switch server {
	case "Ollama":
		return fmt.Sprintf("Start Ollama with a larger window: OLLAMA_CONTEXT_LENGTH=%d ollama serve (or PARAMETER num_ctx %d in a Modelfile).", want, want)
	case "llama.cpp":
		return fmt.Sprintf("Start llama-server with a larger context: -c %d.", want)
	case "LM Studio":
		return "Reload the model in LM Studio with a larger context length."
	case "vLLM":
		return fmt.Sprintf("Start vLLM with a larger --max-model-len (e.g. %d), if the model allows it.", want)
	}
	return "Give the model a larger context window on the server, or /clear to start a shorter conversation."
}

// truncationRatio: a server that reports fewer prompt tokens than this share
// of what was sent (estimated) cut the prompt.
const truncationRatio = 0.5

// truncationMin is the smallest estimated prompt worth checking: small
// prompts tokenize too unevenly to judge.
const truncationMin = 1500

// promptCut reports whether the server's count of prompt tokens shows that
// it dropped part of a prompt estimated at sent tokens.
func promptCut(reported, sent int) bool {
	return reported > 0 && sent >= truncationMin && float64(reported) < truncationRatio*float64(sent)
}

func (a *Agent) currentWindow() chat.Window {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.window
}

// ensureWindow asks the server for the current model's window once (the
// config's value stands when set).
func (a *Agent) ensureWindow(ctx context.Context) { a.probeWindow(ctx, false) }

// recheckWindow asks again, once, after a request the server answered, when
// the last probe found nothing: it may have run while the server was down
// or still loading the model. A server that tells nothing is not asked on
// every request: the probe after an answer is its last word.
func (a *Agent) recheckWindow(ctx context.Context) {
	a.mu.Lock()
	again := a.reprobe
	a.reprobe = false
	a.mu.Unlock()
	if again {
		a.probeWindow(ctx, true)
	}
}

func (a *Agent) probeWindow(ctx context.Context, answered bool) {
	a.mu.Lock()
	if a.configWindow || (a.probed && !answered) {
		a.mu.Unlock()
		return
	}
	model := a.model
	a.mu.Unlock()
	w := a.opts.Client.ProbeWindow(ctx, model)
	a.mu.Lock()
	defer a.mu.Unlock()
	if ctx.Err() != nil {
		// Cut short: it found nothing, so the next answer asks again.
		a.reprobe = a.reprobe || answered
		return
	}
	if model != a.model {
		return // /model switched meanwhile: its own probe decides
	}
	a.probed = true
	a.reprobe = w.Tokens == 0 && !answered
	if w.Tokens > 0 {
		a.window = w
		a.opts.Logf("context window of %s: %d tokens (%s)", model, w.Tokens, w.Source)
	}
}

// shrinkWindow lowers the window to what the server showed it serves.
func (a *Agent) shrinkWindow(tokens int, why string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if tokens > 0 && tokens < a.window.Tokens {
		a.window.Tokens, a.window.Source = tokens, why
	}
}
