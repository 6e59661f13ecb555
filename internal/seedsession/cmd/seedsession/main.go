// Command seedsession writes a long session for resume measurements:
//
//	go run ./internal/seedsession/cmd/seedsession -state $XDG_STATE_HOME/myclaw -workspace DIR -turns 1000
//
// then `myclaw --continue` in DIR resumes it (see bench/resume.sh).
package main

import (
	"flag"
	"fmt"
	"os"

	"myclaw/internal/seedsession"
)

func main() {
	state := flag.String("state", "", "myclaw's state directory ($XDG_STATE_HOME/myclaw)")
	ws := flag.String("workspace", "", "the workspace the session belongs to (it gets a notes.md)")
	turns := flag.Int("turns", 1000, "turns to write")
	flag.Parse()
	if *state == "" || *ws == "" {
		fmt.Fprintln(os.Stderr, "seedsession: -state and -workspace are required")
		os.Exit(2)
	}
	id, err := seedsession.Seed(*state, *ws, *turns)
	if err != nil {
		fmt.Fprintln(os.Stderr, "seedsession:", err)
		os.Exit(1)
	}
	fmt.Println(id)
}
