package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"myclaw/tools"
	"os"
	"path/filepath"
	"strings"
	"time"
)

//go:embed time_now.md
var timeNowDescription string

type timeNow struct {
	now  func() time.Time
	meta tools.Meta
}

// NewTimeNow returns the time_now tool. now is the clock (nil means
// time.Now); its location is the one reported.
func NewTimeNow(now func() time.Time) tools.Tool {
	if now == nil {
		now = time.Now
	}
	return &timeNow{now: now, meta: tools.Meta{
		Name:        "time_now",
		Description: strings.TrimSpace(timeNowDescription),
		Schema:      json.RawMessage(`{"type": "object", "properties": {}, "additionalProperties": false}`),
		ReadOnly:    true,
		Risk:        tools.RiskLow,
		Idempotent:  true,
		Capability:  "time:read",
		Timeout:     5 * time.Second,
		Source:      tools.SourceBuiltin,
	}}
}

// Meta implements Tool.
func (t *timeNow) Meta() tools.Meta { return t.meta }

// timeNowOutput is the current time in several forms.
type timeNowOutput struct {
	Now       string `json:"now"`
	UnixS     int64  `json:"unix_s"`
	Timezone  string `json:"timezone"`
	UTCOffset string `json:"utc_offset"`
	Weekday   string `json:"weekday"`
}

// Execute implements Tool.
func (t *timeNow) Execute(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	now := t.now()
	out := timeNowOutput{
		// RFC 3339 with a numeric offset even in UTC, so the zone is explicit.
		Now:       now.Format("2006-01-02T15:04:05-07:00"),
		UnixS:     now.Unix(),
		Timezone:  timeZoneName(now),
		UTCOffset: now.Format("-07:00"),
		Weekday:   now.Weekday().String(),
	}
	return tools.Result{Output: out, Summary: "Read the clock: " + out.Now}, nil
}

// timeZoneName names the zone of t: its IANA name when known (the location's
// name, or for the local zone $TZ or the /etc/localtime link), else the
// abbreviation.
func timeZoneName(t time.Time) string {
	abbr, _ := t.Zone()
	name := t.Location().String()
	if name != "Local" {
		return name
	}
	if tz := strings.TrimPrefix(os.Getenv("TZ"), ":"); tz != "" && !filepath.IsAbs(tz) {
		return tz
	}
	if target, err := os.Readlink("/etc/localtime"); err == nil {
		if _, zone, ok := strings.Cut(target, "zoneinfo/"); ok && zone != "" {
			return zone
		}
	}
	return abbr
}
