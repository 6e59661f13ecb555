package ui

import "github.com/charmbracelet/lipgloss"

// palette is the handful of colours every style is built from, one set for
// dark and one for light backgrounds. Under NO_COLOR lipgloss drops them all.
type palette struct {
	accent, dim, text, ok, err, warn, fence, hunk lipgloss.Color
	// code is inline code in the model's markdown: a tint, not a badge.
	code lipgloss.Color
}

var (
	darkPalette = palette{
		accent: "111", dim: "244", text: "252", ok: "78", err: "203",
		warn: "221", fence: "213", hunk: "80", code: "152",
	}
	lightPalette = palette{
		accent: "25", dim: "245", text: "236", ok: "28", err: "160",
		warn: "130", fence: "127", hunk: "31", code: "24",
	}
)

// Styles holds every style the TUI draws with. Views use these and never
// build styles of their own, so that a frame allocates no styles.
type Styles struct {
	// Transcript.
	UserBar   lipgloss.Style
	UserText  lipgloss.Style
	Dim       lipgloss.Style
	Notice    lipgloss.Style
	Error     lipgloss.Style
	ErrorMark lipgloss.Style
	Hint      lipgloss.Style
	Warn      lipgloss.Style
	Bold      lipgloss.Style
	Reasoning lipgloss.Style

	// Tool cards.
	ToolName  lipgloss.Style
	ToolArg   lipgloss.Style
	Running   lipgloss.Style
	OK        lipgloss.Style
	Failed    lipgloss.Style
	Denied    lipgloss.Style
	Cancelled lipgloss.Style

	// The untrusted frame.
	FenceBorder lipgloss.Style
	FenceLabel  lipgloss.Style
	FenceText   lipgloss.Style
	// FenceQuiet draws the thin frame of the workspace's own content.
	FenceQuiet lipgloss.Style
	// FormLabel names the MCP server whose form is open, in the colour
	// of untrusted text and unlike any heading of myclaw's own.
	FormLabel lipgloss.Style

	// Approval pane.
	PaneRule     lipgloss.Style
	PaneTitle    lipgloss.Style
	RiskLow      lipgloss.Style
	RiskMedium   lipgloss.Style
	RiskHigh     lipgloss.Style
	DiffAdd      lipgloss.Style
	DiffDel      lipgloss.Style
	DiffHunk     lipgloss.Style
	DiffHeader   lipgloss.Style
	Choice       lipgloss.Style
	ChoiceActive lipgloss.Style
	Key          lipgloss.Style

	// Input, completion popup and status line.
	InputRule   lipgloss.Style
	Prompt      lipgloss.Style
	PopupName   lipgloss.Style
	PopupActive lipgloss.Style
	PopupDesc   lipgloss.Style
	Status      lipgloss.Style
	StatusModel lipgloss.Style
	StatusHint  lipgloss.Style
	Spinner     lipgloss.Style
	// The autonomy level in the status line (ask and readonly use Status).
	LevelAutoEdit    lipgloss.Style
	LevelFull        lipgloss.Style
	LevelUnsandboxed lipgloss.Style
}

// NewStyles builds the styles for a dark or a light background.
func NewStyles(dark bool) Styles {
	p := lightPalette
	if dark {
		p = darkPalette
	}
	s := lipgloss.NewStyle
	return Styles{
		UserBar:   s().Foreground(p.accent).Bold(true),
		UserText:  s().Foreground(p.text).Bold(true),
		Dim:       s().Foreground(p.dim),
		Notice:    s().Foreground(p.dim).Italic(true),
		Error:     s().Foreground(p.err).Bold(true),
		ErrorMark: s().Foreground(p.err).Bold(true),
		Hint:      s().Foreground(p.dim),
		Warn:      s().Foreground(p.warn).Bold(true),
		Bold:      s().Bold(true),
		Reasoning: s().Foreground(p.dim).Italic(true),

		ToolName:  s().Foreground(p.accent).Bold(true),
		ToolArg:   s().Foreground(p.text),
		Running:   s().Foreground(p.warn),
		OK:        s().Foreground(p.ok),
		Failed:    s().Foreground(p.err),
		Denied:    s().Foreground(p.warn),
		Cancelled: s().Foreground(p.dim),

		FenceBorder: s().Foreground(p.fence),
		FenceLabel:  s().Foreground(p.fence).Bold(true),
		FenceText:   s().Foreground(p.text),
		FenceQuiet:  s().Foreground(p.dim),
		FormLabel:   s().Foreground(p.fence).Bold(true).Reverse(true),

		PaneRule:     s().Foreground(p.accent),
		PaneTitle:    s().Foreground(p.accent).Bold(true),
		RiskLow:      s().Foreground(p.ok).Bold(true),
		RiskMedium:   s().Foreground(p.warn).Bold(true),
		RiskHigh:     s().Foreground(p.err).Bold(true).Reverse(true),
		DiffAdd:      s().Foreground(p.ok),
		DiffDel:      s().Foreground(p.err),
		DiffHunk:     s().Foreground(p.hunk),
		DiffHeader:   s().Bold(true),
		Choice:       s().Foreground(p.text),
		ChoiceActive: s().Foreground(p.accent).Bold(true).Reverse(true),
		Key:          s().Foreground(p.accent).Bold(true),

		InputRule:   s().Foreground(p.dim),
		Prompt:      s().Foreground(p.accent).Bold(true),
		PopupName:   s().Foreground(p.accent),
		PopupActive: s().Foreground(p.accent).Bold(true).Reverse(true),
		PopupDesc:   s().Foreground(p.dim),
		Status:      s().Foreground(p.dim),
		StatusModel: s().Foreground(p.accent).Bold(true),
		StatusHint:  s().Foreground(p.warn).Bold(true),
		Spinner:     s().Foreground(p.accent),

		LevelAutoEdit:    s().Foreground(p.hunk),
		LevelFull:        s().Foreground(p.warn).Bold(true),
		LevelUnsandboxed: s().Foreground(p.err).Bold(true),
	}
}
