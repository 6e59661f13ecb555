// Package proctest answers, for tests, whether a process still runs.
package proctest
