package ui

// welcomeBlock is the first block of the transcript: the version, the
// model and the server with the start-up check's outcome, and a two-line
// quick start.
type welcomeBlock struct {
	version, model, server string
	state                  string // "checking…", "ready", "not answering"
	cache                  lineCache
}

func newWelcome(version, model, server string) *welcomeBlock {
	return &welcomeBlock{version: oneLine(version), model: oneLine(model), server: oneLine(server), state: "checking the server…"}
}

// checked records the start-up check; the error itself has its own block.
func (w *welcomeBlock) checked(err error) {
	if w == nil {
		return
	}
	w.state = "server ready"
	if err != nil {
		w.state = "server check failed (below)"
	}
	w.cache.reset()
}

func (w *welcomeBlock) lines(c *common) []string {
	if l, ok := w.cache.get(c); ok {
		return l
	}
	st := &c.styles
	width := c.contentWidth()
	head := "myclaw"
	if w.version != "" {
		head += " " + w.version
	}
	info := " · no model set"
	if w.model != "" {
		info = " · " + w.model
	}
	if w.server != "" {
		info += " at " + w.server
	}
	info += " · " + w.state
	k := &c.keys
	out := []string{truncate("  "+st.Bold.Render(head)+st.Notice.Render(info), width)}
	for _, l := range []string{
		"Ask in plain words (" + k.Send.Help().Key + " sends); edits and commands wait for your approval.",
		"/undo walks changes back · @path attaches a file · !cmd runs one · /help",
	} {
		for _, wl := range wrapPlain(l, width-2) {
			out = append(out, "  "+st.Notice.Render(wl))
		}
	}
	return w.cache.put(c, withGap(out))
}
