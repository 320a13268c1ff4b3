#!/bin/sh
# instructions.sh PKG BENCH: instructions per op of the Go benchmarks of
# package PKG matching BENCH, counted by valgrind's cachegrind, which does not
# depend on the machine's load (timings on a shared machine move by 10% or
# more from run to run). Each benchmark runs twice, at 200,000 and 400,000
# ops; the difference over 200,000 leaves out what the benchmark does once.
# Needs valgrind. Example (from the repository root):
#   bench/scripts/instructions.sh ./timingwheel 'Event/.*/N=100$'
set -eu
command -v valgrind >/dev/null || { echo "instructions.sh needs valgrind" >&2; exit 1; }
pkg=$1 bench=$2
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
	a=$(count "$re" 200000)
	b=$(count "$re" 400000)
	echo "$name $(( (b - a) / 200000 )) instructions/op"
done
