#!/bin/sh
# resume.sh measures, end to end in a real terminal (tmux, 120×40), how
# long `myclaw --continue` takes to its first frame on a seeded session of
# TURNS turns, next to a fresh session's start, and the memory each keeps.
#
#   bench/resume.sh [TURNS] [RUNS]      (defaults: 1000 turns, 5 runs)
#
# For each run it starts myclaw in a new tmux window from a shell that
# records the time just before exec, then polls the screen until the first
# frame is there (the last answer for a resume, the input box for a fresh
# start): the time between is the start to first frame, package inits
# included. It then reads the process's CPU time and RSS (1 s after the
# frame, when the load's garbage has been returned) from /proc, and, for
# the resume, checks the first turn is reachable (ctrl+home). Linux only;
# needs go and tmux. Everything lives in a temporary directory.
#
# MYCLAW_BIN=path measures that binary (an older build, say) instead of
# one built from this tree; the seed is always this tree's.
set -eu
TURNS=${1:-1000}
RUNS=${2:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
SOCK="$T/tmux.sock"
cleanup() {
	tmux -S "$SOCK" kill-server 2>/dev/null || true
	[ -f "$T/fake.pid" ] && kill "$(cat "$T/fake.pid")" 2>/dev/null || true
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

cd "$ROOT"
if [ -n "${MYCLAW_BIN:-}" ]; then
	cp "$MYCLAW_BIN" "$T/myclaw"
else
	go build -o "$T/myclaw" .
fi
go build -o "$T/fakeserver" ./cmd/fakeserver
go build -o "$T/seed" ./internal/seedsession/cmd/seedsession
PORT=$((20000 + $$ % 20000))
"$T/fakeserver" -addr "127.0.0.1:$PORT" >"$T/fake.log" 2>&1 &
echo $! >"$T/fake.pid"
mkdir -p "$T/home" "$T/config" "$T/state" "$T/data" "$T/cache" "$T/resumed" "$T/short" "$T/fresh"
echo "seeding $TURNS turns (every record fsynced: this takes a while)…"
"$T/seed" -state "$T/state/myclaw" -workspace "$T/resumed" -turns "$TURNS" >/dev/null
"$T/seed" -state "$T/state/myclaw" -workspace "$T/short" -turns 10 >/dev/null

now() { date +%s%N; }

# run NAME DIR MARKER ARGS: one start; prints ms to first frame, CPU ms,
# RSS KB.
run() {
	name=$1 dir=$2 marker=$3
	shift 3
	rm -f "$T/t0"
	tmux -S "$SOCK" new-session -d -s "$name" -x 120 -y 40 \
		"env HOME=$T/home XDG_CONFIG_HOME=$T/config XDG_STATE_HOME=$T/state XDG_DATA_HOME=$T/data XDG_CACHE_HOME=$T/cache OPENAI_BASE_URL=http://127.0.0.1:$PORT/v1 \
		sh -c 'cd $dir && date +%s%N >$T/t0 && exec $T/myclaw --model fake $*'"
	while :; do
		if tmux -S "$SOCK" capture-pane -p -t "$name" 2>/dev/null | grep -qF "$marker"; then
			t1=$(now)
			break
		fi
		sleep 0.005 # leave the cores to myclaw
	done
	pid=$(tmux -S "$SOCK" display -p -t "$name" '#{pane_pid}')
	sleep 1
	# utime+stime in clock ticks (fields 14, 15 after the command name).
	ticks=$(sed 's/.*) //' "/proc/$pid/stat" | awk '{print $12 + $13}')
	hz=$(getconf CLK_TCK)
	rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
	if [ "$name" = resume ]; then
		tmux -S "$SOCK" send-keys -t "$name" C-Home
		sleep 1
		if ! tmux -S "$SOCK" capture-pane -p -t "$name" | grep -qF "Turn 1: look at notes.md"; then
			echo "resume: the first turn is not reachable with ctrl+home" >&2
			exit 1
		fi
	fi
	tmux -S "$SOCK" kill-session -t "$name"
	echo "$(( (t1 - $(cat "$T/t0")) / 1000000 )) $(( ticks * 1000 / hz )) $rss"
}

LAST="So section $(( (TURNS - 1) % 17 )) is done"
for mode in fresh short resume; do
	: >"$T/$mode.txt"
done
for i in $(seq "$RUNS"); do
	run fresh "$T/fresh" "Ask anything" >>"$T/fresh.txt"
	run short "$T/short" "So section 9 is done" --continue >>"$T/short.txt"
	run resume "$T/resumed" "$LAST" --continue >>"$T/resume.txt"
done

# median of column $2 of file $1
median() { awk -v c="$2" '{print $c}' "$1" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%-26s %18s %10s %10s\n' "start (median of $RUNS)" "first frame (ms)" "CPU (ms)" "RSS (KB)"
for mode in fresh short resume; do
	case $mode in
	fresh) label="new session" ;;
	short) label="--continue, 10 turns" ;;
	resume) label="--continue, $TURNS turns" ;;
	esac
	printf '%-26s %18s %10s %10s\n' "$label" "$(median "$T/$mode.txt" 1)" "$(median "$T/$mode.txt" 2)" "$(median "$T/$mode.txt" 3)"
done
echo "resume's part: $(( $(median "$T/resume.txt" 1) - $(median "$T/fresh.txt" 1) )) ms to the first frame past a new session's," \
	"$(( ($(median "$T/resume.txt" 3) - $(median "$T/short.txt" 3)) * 1000 / (TURNS - 10) )) bytes of RSS per turn past a 10-turn resume's"
