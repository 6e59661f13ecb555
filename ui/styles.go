package ui

import "github.com/charmbracelet/lipgloss"

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

// NewStyles builds the styles from a theme's colours.
func NewStyles(p Theme) Styles {
	s := lipgloss.NewStyle
	return Styles{
		UserBar:   s().Foreground(p.Accent).Bold(true),
		UserText:  s().Foreground(p.Text).Bold(true),
		Dim:       s().Foreground(p.Muted),
		Notice:    s().Foreground(p.Muted).Italic(true),
		Error:     s().Foreground(p.Danger).Bold(true),
		ErrorMark: s().Foreground(p.Danger).Bold(true),
		Hint:      s().Foreground(p.Muted),
		Warn:      s().Foreground(p.Warning).Bold(true),
		Bold:      s().Bold(true),
		Reasoning: s().Foreground(p.Muted).Italic(true),

		ToolName:  s().Foreground(p.Accent).Bold(true),
		ToolArg:   s().Foreground(p.Text),
		Running:   s().Foreground(p.Warning),
		OK:        s().Foreground(p.Success),
		Failed:    s().Foreground(p.Danger),
		Denied:    s().Foreground(p.Warning),
		Cancelled: s().Foreground(p.Muted),

		FenceBorder: s().Foreground(p.UntrustedFrame),
		FenceLabel:  s().Foreground(p.Untrusted).Bold(true),
		FenceText:   s().Foreground(p.Text),
		FenceQuiet:  s().Foreground(p.Muted),
		FormLabel:   s().Foreground(p.Untrusted).Bold(true).Reverse(true),

		PaneRule:     s().Foreground(p.Accent),
		PaneTitle:    s().Foreground(p.Accent).Bold(true),
		RiskLow:      s().Foreground(p.Success).Bold(true),
		RiskMedium:   s().Foreground(p.Warning).Bold(true),
		RiskHigh:     s().Foreground(p.Danger).Bold(true).Reverse(true),
		DiffAdd:      s().Foreground(p.DiffAdded),
		DiffDel:      s().Foreground(p.DiffRemoved),
		DiffHunk:     s().Foreground(p.DiffHunk),
		DiffHeader:   s().Bold(true),
		Choice:       s().Foreground(p.Text),
		ChoiceActive: s().Foreground(p.Accent).Bold(true).Reverse(true),
		Key:          s().Foreground(p.Accent).Bold(true),

		InputRule:   s().Foreground(p.Border),
		Prompt:      s().Foreground(p.Accent).Bold(true),
		PopupName:   s().Foreground(p.Accent),
		PopupActive: s().Foreground(p.Accent).Bold(true).Reverse(true),
		PopupDesc:   s().Foreground(p.Muted),
		Status:      s().Foreground(p.Muted),
		StatusModel: s().Foreground(p.Accent).Bold(true),
		StatusHint:  s().Foreground(p.Warning).Bold(true),
		Spinner:     s().Foreground(p.Accent),

		LevelAutoEdit:    s().Foreground(p.Info),
		LevelFull:        s().Foreground(p.Warning).Bold(true),
		LevelUnsandboxed: s().Foreground(p.Danger).Bold(true),
	}
}
