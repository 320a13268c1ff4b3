#!/bin/sh
# ab.sh OLD NEW REPS [twsim flags...]: runs two twsim binaries alternately
# (old, new, old, new, ...) REPS times each with -compare=false and the given
# flags, and writes their result lines in benchstat format to old.txt and
# new.txt in the current directory. Then: benchstat old.txt new.txt
# Example (from the repository root):
#   go build -o /tmp/twsim-old ./cmd/twsim   # before the change
#   go build -o /tmp/twsim-new ./cmd/twsim   # after
#   bench/scripts/ab.sh /tmp/twsim-old /tmp/twsim-new 10 -workload hold,timeout-1m -n 1e6
set -eu
old=$1 new=$2 reps=$3
shift 3
: > old.txt
: > new.txt
tobench() {
	# "HOLD 1000000 41.7 123" -> "BenchmarkHOLD/N=1000000 1 41.7 ns/op"
	awk '/^[A-Z][A-Z0-9_-]* [0-9]+ [0-9.]+ [0-9]+$/ {
		unit = ($1 == "MEM") ? "B/alarm" : "ns/op"
		printf "Benchmark%s/N=%s 1 %s %s\n", $1, $2, $3, unit }'
}
i=0
while [ "$i" -lt "$reps" ]; do
	"$old" -compare=false "$@" | tobench >> old.txt
	"$new" -compare=false "$@" | tobench >> new.txt
	i=$((i + 1))
done
