package builtin

import (
	"context"
	"myclaw/tools"
	"testing"
	"time"
)

func TestTimeNow(t *testing.T) {
	rome, err := time.LoadLocation("Europe/Rome")
	if err != nil {
		t.Skipf("no time zone database: %v", err)
	}
	tests := []struct {
		name string
		at   time.Time
		want timeNowOutput
	}{
		{"named zone, summer", time.Date(2026, 4, 21, 22, 14, 0, 0, rome), timeNowOutput{
			Now: "2026-04-21T22:14:00+02:00", UnixS: 1776802440, Timezone: "Europe/Rome", UTCOffset: "+02:00", Weekday: "Tuesday"}},
		{"named zone, winter", time.Date(2026, 1, 5, 8, 0, 0, 0, rome), timeNowOutput{
			Now: "2026-01-05T08:00:00+01:00", UnixS: 1767596400, Timezone: "Europe/Rome", UTCOffset: "+01:00", Weekday: "Monday"}},
		{"UTC keeps a numeric offset", time.Date(2026, 4, 21, 20, 14, 0, 0, time.UTC), timeNowOutput{
			Now: "2026-04-21T20:14:00+00:00", UnixS: 1776802440, Timezone: "UTC", UTCOffset: "+00:00", Weekday: "Tuesday"}},
		{"fixed zone", time.Date(2026, 4, 21, 15, 44, 0, 0, time.FixedZone("X", -(4*3600+30*60))), timeNowOutput{
			Now: "2026-04-21T15:44:00-04:30", UnixS: 1776802440, Timezone: "X", UTCOffset: "-04:30", Weekday: "Tuesday"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := NewTimeNow(func() time.Time { return tt.at })
			res, err := tool.Execute(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Output.(timeNowOutput); got != tt.want {
				t.Errorf("output = %+v; want %+v", got, tt.want)
			}
			if _, err := time.Parse(time.RFC3339, res.Output.(timeNowOutput).Now); err != nil {
				t.Errorf("now is not RFC 3339: %v", err)
			}
		})
	}
}

func TestTimeNowLocalZone(t *testing.T) {
	t.Setenv("TZ", "Asia/Tokyo")
	// time.Local is fixed at start-up; a location named "Local" stands for it.
	local := time.FixedZone("Local", 9*3600)
	res, err := NewTimeNow(func() time.Time { return time.Date(2026, 4, 21, 9, 0, 0, 0, local) }).Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Output.(timeNowOutput).Timezone; got != "Asia/Tokyo" {
		t.Errorf("timezone = %q; want Asia/Tokyo from $TZ", got)
	}
	m := NewTimeNow(nil).Meta()
	if !m.ReadOnly || !m.Idempotent || m.ReturnsUntrusted || m.Risk != tools.RiskLow {
		t.Errorf("meta = %+v; want read-only, idempotent, trusted, low risk", m)
	}
}
