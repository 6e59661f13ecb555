// Package shell is myclaw's one table of shell knowledge: it parses a
// command line (Parse) and says what each command in it reads, writes,
// deletes and runs, how risky it is and what to warn about, so that
// approval, previews and undo judge a command from the same facts.
package shell
