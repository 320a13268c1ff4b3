#!/bin/sh
# components.sh TWSIM WORKLOAD N [REPS]: where a wheel's time goes on one
# row of the main job, by component. It runs the twsim binary TWSIM with
# -compare=false -clock thread on WORKLOAD at size N under the CPU profiler,
# keeps the samples of the timed region (the profile's label timed=WORKLOAD),
# puts each function's own (flat) samples into one component and prints each
# component's share and its ns per op (the share times the row's ns/op).
# Functions inlined into others count where their code came from, as pprof
# reports them. The components:
#   small      the radix heap of small mode (internal/queue/small.go)
#   levels     the levels: slots, vectors, bitmaps, cascades, the minimum
#              over the levels (slots.go, bitmap.go, the level code of queue.go)
#   due/fire   the due list and the fire loop (dueHead, dueDel, toDue,
#              FireDue, TakeDue, endFiring)
#   queue      the rest of internal/queue: Add, Remove, MinKey, the
#              collection's entry and the records' keys and states
#   pool       internal/pool: records, free stack, handles
#   api        the timingwheel (or simclock) package and package time; on
#              the clock rows simclock's own timers and early heap too
#   harness    cmd/twsim (the workload's own loop and its random numbers)
#   runtime    everything else (runtime, collector, ...)
# A cache miss counts where the instruction that waits for it is. Samples
# come every 10 ms, so a component below 1% of a short run is noise. With
# DEBUG=1 it lists each function with its component on standard error.
# Example (from the repository root):
#   go build -o /tmp/twsim ./cmd/twsim
#   bench/scripts/components.sh /tmp/twsim hold-exact 1000 5
set -eu
[ $# -ge 3 ] || { echo "usage: components.sh TWSIM WORKLOAD N [REPS]" >&2; exit 2; }
bin=$1 wl=$2 n=$3 reps=${4:-3}
prof=$(mktemp)
out=$(mktemp)
perr=$(mktemp)
trap 'rm -f "$prof" "$out" "$perr"' EXIT
"$bin" -compare=false -clock thread -reps "$reps" -workload "$wl" -n "$n" -cpuprofile "$prof" >"$out"
# The row: its name is the first column, ns/op the third.
label=$(echo "$wl" | tr a-z A-Z)
nsop=$(awk -v w="$label" '$1 == w && $3 ~ /^[0-9.]+$/ { print $3; exit }' "$out")
[ -n "$nsop" ] || { echo "components.sh: no $label row in twsim's output" >&2; cat "$out" >&2; exit 1; }
# Functions of internal/queue by the file that defines them.
root=$(cd "$(dirname "$0")/../.." && pwd)
funcs() { cat "$@" | sed -n 's/^func \(([^)]*) \)\{0,1\}\([A-Za-z0-9_]*\).*/\2/p' | tr '\n' ' '; }
small=$(funcs "$root/internal/queue/small.go")
slots=$(funcs "$root/internal/queue/slots.go" "$root/internal/queue/bitmap.go")
go tool pprof -top -nodecount=1000000 -nodefraction=0 -edgefraction=0 \
	-tagfocus "timed=^$label\$" "$prof" 2>"$perr" |
	awk -v debug="${DEBUG:-}" -v nsop="$nsop" -v small="$small" -v slots="$slots" '
	function ms(s) { # pprof durations: 10ms, 1.20s, 500us
		if (s ~ /ms$/) return substr(s, 1, length(s) - 2) + 0
		if (s ~ /us$/) return (substr(s, 1, length(s) - 2) + 0) / 1000
		if (s ~ /s$/) return (substr(s, 1, length(s) - 1) + 0) * 1000
		return s + 0
	}
	BEGIN {
		split(small, a, " "); for (i in a) isSmall[a[i]] = 1
		split(slots, a, " "); for (i in a) isSlots[a[i]] = 1
		# Level code that lives in queue.go.
		split("place moveDown cascade cascadeRange moveAll setMin levelsAboveMin collectLevel0 levelMinKey computeMinKey slotMin touch touchRec slot alignDown minAfter LevelMinTime", a, " ")
		for (i in a) isSlots[a[i]] = 1
		split("dueHead dueDel toDue FireDue TakeDue endFiring", a, " ")
		for (i in a) isFire[a[i]] = 1
		order = "small levels due/fire queue pool api harness runtime"
	}
	$1 ~ /^[0-9.]+(ms|s|us)$/ && NF >= 6 {
		fn = $6
		for (i = 7; i <= NF; i++) fn = fn " " $i
		sub(/ *\(inline\)$/, "", fn)
		# Type parameters, which name other packages, go first: what is
		# left is the package path, the receiver and the function.
		name = fn
		while (match(name, /\[[^][]*\]/)) name = substr(name, 1, RSTART - 1) substr(name, RSTART + RLENGTH)
		leaf = name
		sub(/^.*\//, "", leaf)          # queue.(*Queue).rsplit.func1
		sub(/^[^.]*\./, "", leaf)       # (*Queue).rsplit.func1
		sub(/^\([^)]*\)\./, "", leaf)   # rsplit.func1
		sub(/\..*/, "", leaf)           # rsplit
		fn = name
		if (fn ~ /timingwheel\/internal\/queue\./) {
			if (leaf in isFire) c = "due/fire" # before levels: some live in slots.go
			else if (leaf in isSmall) c = "small"
			else if (leaf in isSlots) c = "levels"
			else c = "queue"
		} else if (fn ~ /timingwheel\/internal\/pool\./) c = "pool"
		else if (fn ~ /timingwheel\/(timingwheel|simclock)\./ || fn ~ /^time\./) c = "api"
		else if (fn ~ /timingwheel\/cmd\/twsim/) c = "harness"
		else c = "runtime"
		t[c] += ms($1); total += ms($1)
		if (debug != "") printf "%-8s %8s  %s\n", c, $1, fn > "/dev/stderr"
	}
	END {
		if (total == 0) { print "components.sh: no samples in the timed region (go tool pprof said, if anything:)" > "/dev/stderr"; exit 1 }
		printf "%-9s %7s %8s   (%.2f s of samples; row %.1f ns/op)\n", "component", "share", "ns/op", total / 1000, nsop
		n = split(order, o, " ")
		for (i = 1; i <= n; i++)
			printf "%-9s %6.1f%% %8.1f\n", o[i], 100 * t[o[i]] / total, nsop * t[o[i]] / total
	}' || { cat "$perr" >&2; exit 1; }
