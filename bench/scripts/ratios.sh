#!/bin/sh
# ratios.sh RUNS BIN... -- [twsim flags...]: runs each twsim binary in turn
# (a, b, a, b, ...) RUNS times with the given flags, and prints, for each
# binary (in the order given) and each table row that has a ratio, the
# median of the ratio column (heap4 / wheel, or heap clock / simclock) with
# its range over the runs, and the median ns/op of both sides. The
# simulation models' simclock rows are named MM1/simclock and so on. Rows
# without a ratio (MEM, or any row under -compare=false) are left out. Interleaving
# puts every binary under the same load, which moves a row by 10% or more
# from run to run on a shared machine. A binary that fails stops the script.
# Example (from the repository root):
#   go build -o /tmp/twsim-old ./cmd/twsim   # before the change
#   go build -o /tmp/twsim-new ./cmd/twsim   # after
#   bench/scripts/ratios.sh 8 /tmp/twsim-old /tmp/twsim-new -- -clock thread -reps 5 -workload clock-new,clock-step -n 100,1000
set -eu
[ $# -ge 3 ] || { echo "usage: ratios.sh RUNS BIN... -- [twsim flags...]" >&2; exit 2; }
runs=$1
shift
nbins=0
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	nbins=$((nbins + 1))
	eval "bin$nbins=\$1"
	shift
done
[ $# -gt 0 ] && shift
out=$(mktemp)
one=$(mktemp)
trap 'rm -f "$out" "$one"' EXIT
i=0
while [ "$i" -lt "$runs" ]; do
	k=1
	while [ "$k" -le "$nbins" ]; do
		eval "b=\$bin$k"
		"$b" "$@" > "$one" || { echo "ratios.sh: $b failed" >&2; exit 1; }
		# A table row: workload (with the engine after it on the simulation
		# models' simclock rows, "MM1 simclock", reported as MM1/simclock),
		# N, ns/op, allocs/op, bytes/alarm, peak RSS, checksum, heap4
		# ns/op, [heap4 RSS with -isolate,] ratio.
		awk -v k="$k" -v bin="$b" '
			function num(s) { return s ~ /^[0-9]+(\.[0-9]+)?$/ }
			/^ +[A-Z][A-Z0-9_-]* +([a-z]+ +)?[0-9]+ / {
				name = $1; o = 0
				if ($2 ~ /^[a-z]+$/) { name = $1 "/" $2; o = 1 }
				if (NF >= 9 + o && num($(3+o)) && num($(8+o)) && num($NF))
					print k, bin, name, $(2+o), $(3+o), $(8+o), $NF
			}' "$one" >> "$out"
		k=$((k + 1))
	done
	i=$((i + 1))
done
[ -s "$out" ] || { echo "ratios.sh: no table row with a ratio (MEM rows and -compare=false have none)" >&2; exit 1; }
# Median and range per binary and row.
sort -k1,1n -k3,3 -k4,4n "$out" | awk '
function med(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j+1] = a[j]; a[j+1] = t }
	return (n % 2) ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
function flush(   m, w, h) {
	if (n == 0) return
	m = med(r, n); w = med(wn, n); h = med(hn, n)
	printf "%-24s %-16s %9s  ratio %.2f (%.2f-%.2f)  ns/op %.1f, baseline %.1f  runs %d\n", bin, name, size, m, r[1], r[n], w, h, n
	n = 0
}
{
	if ($1 != k || $3 != name || $4 != size) { flush(); k = $1; bin = $2; name = $3; size = $4 }
	n++; wn[n] = $5; hn[n] = $6; r[n] = $7
}
END { flush() }'
