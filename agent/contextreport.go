package agent

// ContextReport says what the next request would carry, in tokens
// estimated at four bytes a token (the server counts its own way).
type ContextReport struct {
	Window int
	// WindowSource says where Window came from ("estimated" when neither
	// the server nor the config said).
	WindowSource string
	// CompactCatalog is set when the window is small and the tools are
	// described tersely.
	CompactCatalog bool
	// System is the whole system prompt, instruction files included;
	// Instructions lists those files with their share.
	System       int
	Instructions []InstructionShare
	// Catalog is the tool catalog the model sees now (Tools of them).
	Catalog int
	Tools   int
	// Conversation is the messages so far (Messages of them), and
	// Attached what waits for the next message (!command output, @files).
	Conversation int
	Messages     int
	Attached     int
	// Free is what is left of the window.
	Free int
	// LastUsage is the server's count for the last request (0: none yet).
	LastUsage int
}

// InstructionShare is one instruction file in the prompt.
type InstructionShare struct {
	Path, Scope string
	// Untrusted is set when the file is given as the project's notes.
	Untrusted bool
	Truncated bool
	Tokens    int
}

// Context reports what is in the prompt now.
func (a *Agent) Context() ContextReport {
	_ = a.ready()
	req, _ := a.buildRequest()
	win := a.currentWindow()
	r := ContextReport{Window: win.Tokens, WindowSource: win.Source, CompactCatalog: win.Tokens < compactWindow}
	if len(req.Messages) > 0 {
		r.System = estimateMessage(req.Messages[0])
		r.Messages = len(req.Messages) - 1
		r.Conversation = estimateMessages(req.Messages[1:])
	}
	r.Catalog, r.Tools = estimateCatalog(req.Tools), len(req.Tools)
	if in := a.opts.Instructions; in != nil {
		trusted := in.Trusted()
		for _, f := range in.Files() {
			r.Instructions = append(r.Instructions, InstructionShare{
				Path: f.Path, Scope: f.Scope, Truncated: f.Truncated,
				Untrusted: f.Scope != ScopeUser && !trusted,
				Tokens:    estimateText(f.Content),
			})
		}
	}
	a.mu.Lock()
	for _, at := range a.attachments {
		r.Attached += estimateText(at.Text) + estimateImage(at.ImageURL)
	}
	if a.lastCount.ok {
		r.LastUsage = a.lastCount.total
	}
	a.mu.Unlock()
	r.Free = max(r.Window-r.System-r.Catalog-r.Conversation-r.Attached, 0)
	return r
}

// imageTokens is a rough count for one image part: servers charge by
// tiles, not by the bytes of its encoding.
const imageTokens = 1000

func estimateImage(url string) int {
	if url == "" {
		return 0
	}
	return imageTokens
}
