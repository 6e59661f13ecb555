package tools

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// procReapWait bounds how long a kill waits for the killed processes to exit.
const procReapWait = 3 * time.Second

// procRunMarkerPrefix starts the name of the variable that tags the
// processes of one shell_run call. Each call has its own name, so a myclaw
// running inside another's command keeps the outer marker too.
const procRunMarkerPrefix = "MYCLAW_RUN_"

// newProcMarker returns a fresh marker environment entry.
func newProcMarker() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return procRunMarkerPrefix + hex.EncodeToString(b) + "=1"
}
