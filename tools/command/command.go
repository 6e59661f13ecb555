package command

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"myclaw/tools"
)

// defaultSchema takes no arguments: a tool whose config declares no
// input_schema is called with {}.
const defaultSchema = `{"type":"object","additionalProperties":false}`

// Spec is one [[tools]] entry of the config (source = "command").
type Spec struct {
	// Name is "namespace/short_name", required.
	Name string
	// Description tells the model when to use the tool, required.
	Description string
	// Command is the argv to run, without a shell, required.
	Command []string
	// InputSchema is the JSON Schema of the arguments; nil means the tool
	// takes none ({"type":"object","additionalProperties":false}).
	InputSchema json.RawMessage
	// Capability says what the tool can do.
	Capability Capability
	// Risk is "low", "medium" or "high"; "" derives it from Capability.
	Risk string
	// ReturnsUntrusted fences the tool's output as untrusted content.
	ReturnsUntrusted bool
	// Timeout is in seconds, >= 1; 0 means tools.DefaultTimeout.
	Timeout int
	// Dir is the working directory (the workspace).
	Dir string
	// Origin says where the entry was declared, for errors, e.g.
	// "/home/u/.config/myclaw/config.toml: tools[2]".
	Origin string
}

// Capability mirrors the seed's ToolCapability.
type Capability struct {
	// ReadOnly means the tool only reads, never writes.
	ReadOnly bool
	// Writes means the tool can write to resources.
	Writes bool
	// WriteScope names the scope of its writes.
	WriteScope string
	// Checkpointable means the tool supports checkpoint and rollback.
	Checkpointable bool
	// SideEffects lists its known side effects.
	SideEffects []string
	// Idempotent means re-running a call is safe.
	Idempotent bool
	// Unsafe means the tool needs extra safety checks.
	Unsafe bool
	// HumanApprovalRequired means every call needs a person's approval.
	HumanApprovalRequired bool
}

// Check validates a spec with the seed's constraints (read_only => !writes
// && !checkpointable; name format; timeout >= 1; command non-empty; risk
// value; schema compiles) and names the origin and key in its error. All the
// problems found are reported, joined.
func (s Spec) Check() error {
	origin := s.Origin
	if origin == "" {
		origin = fmt.Sprintf("tools entry %q", s.Name)
	}
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s: %s", origin, key, fmt.Sprintf(format, args...)))
	}
	switch {
	case s.Name == "":
		bad("name", "missing: give the tool a name like \"local/line_counter\"")
	case tools.CheckName(s.Name, tools.SourceCommand) != nil:
		bad("name", "%q is not namespace/short_name (two parts of letters, digits, '_', '.', '-', each starting with a letter or digit, 128 bytes at most)", s.Name)
	}
	if strings.TrimSpace(s.Description) == "" {
		bad("description", "missing: say what the tool does and when to use it")
	}
	if len(s.Command) == 0 {
		bad("command", "missing: give the program and its arguments as a list, e.g. [\"python3\", \"count.py\"] (no shell)")
	} else {
		if s.Command[0] == "" {
			bad("command[0]", "the program name is empty")
		}
		for i, a := range s.Command {
			if strings.IndexByte(a, 0) >= 0 {
				bad(fmt.Sprintf("command[%d]", i), "contains a NUL byte")
			}
		}
	}
	if s.Timeout < 0 {
		bad("timeout", "must be at least 1 second, got %d", s.Timeout)
	}
	switch s.Risk {
	case "", string(tools.RiskLow), string(tools.RiskMedium), string(tools.RiskHigh):
	default:
		bad("risk", "%q is not one of low, medium, high", s.Risk)
	}
	if s.Capability.ReadOnly && s.Capability.Writes {
		bad("capability.writes", "read_only = true forbids writes = true")
	}
	if s.Capability.ReadOnly && s.Capability.Checkpointable {
		bad("capability.checkpointable", "read_only = true forbids checkpointable = true")
	}
	if s.InputSchema != nil {
		if err := tools.CompileSchema(s.Name, s.InputSchema); err != nil {
			bad("input_schema", "%s", tools.FirstAndLastLines(err.Error(), 1000))
		}
	}
	return errors.Join(errs...)
}

// New builds the tool: ReadOnly = capability.read_only &&
// !human_approval_required && len(side_effects) == 0; Risk from risk, or
// high when unsafe, low when read-only, medium when the entry declares its
// writes or side effects, and high when it declares nothing; SupportsDryRun
// false (DryRun shows the argv and the JSON that will be written to stdin);
// Source tools.SourceCommand. It fails with Check's error.
func New(s Spec) (tools.Tool, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	s.Command = append([]string(nil), s.Command...)
	s.Capability.SideEffects = append([]string(nil), s.Capability.SideEffects...)
	if s.Timeout == 0 {
		s.Timeout = int(tools.DefaultTimeout / time.Second)
	}
	schema := s.InputSchema
	if schema == nil {
		schema = json.RawMessage(defaultSchema)
	}
	c := s.Capability
	readOnly := c.ReadOnly && !c.HumanApprovalRequired && len(c.SideEffects) == 0
	risk := tools.Risk(s.Risk)
	if risk == "" {
		switch {
		case c.Unsafe:
			risk = tools.RiskHigh
		case readOnly:
			risk = tools.RiskLow
		case c.Writes || len(c.SideEffects) > 0:
			risk = tools.RiskMedium
		default:
			risk = tools.RiskHigh
		}
	}
	return &commandTool{
		spec: s,
		meta: tools.Meta{
			Name:             s.Name,
			Description:      s.Description,
			Schema:           append(json.RawMessage(nil), schema...),
			ReadOnly:         readOnly,
			Risk:             risk,
			ReturnsUntrusted: s.ReturnsUntrusted,
			Idempotent:       c.Idempotent || readOnly,
			SupportsDryRun:   false,
			Capability:       "command:" + s.Name,
			Timeout:          time.Duration(s.Timeout) * time.Second,
			Source:           tools.SourceCommand,
			AlwaysAsk:        c.HumanApprovalRequired,
		},
	}, nil
}

// commandTool runs one configured command.
type commandTool struct {
	spec Spec
	meta tools.Meta
}

// Meta implements tools.Tool.
func (t *commandTool) Meta() tools.Meta { return t.meta }

// DryRun implements tools.Tool. A command cannot be previewed: a
// side-effecting call is described by the argv and the JSON its stdin will
// get; a read-only one simply runs.
func (t *commandTool) DryRun(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	argv := quoteArgv(t.spec.Command)
	summary := "Run " + t.meta.Name + ": " + tools.Clip(argv, 200)
	if t.meta.ReadOnly {
		res, err := t.Execute(ctx, args)
		if err == nil {
			res.Summary = summary
		}
		return res, err
	}
	var b strings.Builder
	b.WriteString("$ " + argv + "\n")
	if t.spec.Dir != "" {
		b.WriteString("(in " + t.spec.Dir + ")\n")
	}
	b.WriteString("stdin:\n" + tools.PrettyJSON(stdinJSON(args)))
	return tools.Result{Summary: summary, Preview: b.String(), Capability: t.meta.Capability}, nil
}

// stdinJSON is what the command reads: the call's arguments, {} when none.
func stdinJSON(args json.RawMessage) []byte {
	if len(bytes.TrimSpace(args)) == 0 {
		return []byte("{}")
	}
	return args
}

// quoteArgv renders an argv the way a POSIX shell would read it back.
func quoteArgv(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

var plainArg = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`)

func shellQuote(s string) string {
	if plainArg.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
