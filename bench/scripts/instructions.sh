#!/bin/sh
# instructions.sh PKG BENCH: instructions per op of the Go benchmarks of
# package PKG matching BENCH, counted by valgrind's cachegrind, which does not
# depend on the machine's load (timings on a shared machine move by 10% or
# more from run to run). Each benchmark runs twice, at OPS and 2*OPS ops
# (OPS is 200,000 unless set); the difference over OPS leaves out what the
# benchmark does once. Set OPS lower for a benchmark whose op is large (a
# clock of 1000 timers: OPS=100), and GOGC=off to leave out the garbage
# collector's work, which varies from run to run. Needs valgrind.
# Examples (from the repository root):
#   bench/scripts/instructions.sh ./timingwheel 'Event/.*/N=100$'
#   GOGC=off OPS=100 bench/scripts/instructions.sh ./simclock 'AfterFuncAdvance/.*/n=1000$'
set -eu
command -v valgrind >/dev/null || { echo "instructions.sh needs valgrind" >&2; exit 1; }
pkg=$1 bench=$2
ops=${OPS:-200000}
bin=$(mktemp)
trap 'rm -f "$bin"' EXIT
go test -c -o "$bin" "$pkg"
count() { # ops -> instructions of the whole run
	GODEBUG=asyncpreemptoff=1 valgrind --tool=cachegrind --cache-sim=no \
		--cachegrind-out-file=/dev/null "$bin" -test.run '^$' -test.bench "$1" \
		-test.benchtime "$2x" -test.cpu 1 2>&1 |
		awk '/I *refs:/ { gsub(",", "", $NF); print $NF }'
}
# One benchmark at a time: list the sub-benchmarks the pattern selects.
names=$("$bin" -test.run '^$' -test.bench "$bench" -test.benchtime 1x -test.cpu 1 |
	awk '/^Benchmark/ { print $1 }')
[ -n "$names" ] || { echo "no benchmark matches $bench" >&2; exit 1; }
echo "$names" | while read -r name; do
	re="^$(echo "$name" | sed 's/[][().*+?^$|]/\\&/g; s|/|$/^|g')\$"
	a=$(count "$re" "$ops")
	b=$(count "$re" $((2 * ops)))
	echo "$name $(( (b - a) / ops )) instructions/op"
done
