#!/bin/sh
# ratios.sh RUNS BIN... -- [twsim flags...]: runs each twsim binary in turn
# (a, b, a, b, ...) RUNS times with the given flags, and prints, for each
# binary and table row, the median of the row's last column (heap4 / wheel,
# or heap clock / simclock) with its range over the runs, and the median
# ns/op of both sides. Interleaving puts every binary under the same load,
# which moves a row by 10% or more from run to run on a shared machine.
# Example (from the repository root):
#   go build -o /tmp/twsim-old ./cmd/twsim   # before the change
#   go build -o /tmp/twsim-new ./cmd/twsim   # after
#   bench/scripts/ratios.sh 8 /tmp/twsim-old /tmp/twsim-new -- -clock thread -reps 5 -workload clock-new,clock-step -n 100,1000
set -eu
[ $# -ge 3 ] || { echo "usage: ratios.sh RUNS BIN... -- [twsim flags...]" >&2; exit 2; }
runs=$1
shift
bins=
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	bins="$bins $1"
	shift
done
[ $# -gt 0 ] && shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
i=0
while [ "$i" -lt "$runs" ]; do
	for b in $bins; do
		# A table row: name, N, wheel ns/op, ..., heap4 ns/op, ratio.
		"$b" "$@" | awk -v bin="$b" '/^ +[A-Z][A-Z0-9_-]* +[0-9]+ +[0-9.]+ / && NF >= 5 {
			print bin, $1, $2, $3, $(NF-1), $NF }' >> "$out"
	done
	i=$((i + 1))
done
# Median and range per binary and row.
sort -k1,1 -k2,2 -k3,3n "$out" | awk '
function med(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j+1] = a[j]; a[j+1] = t }
	return (n % 2) ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
function flush(   lo, hi, m, w, h) {
	if (n == 0) return
	m = med(r, n); lo = r[1]; hi = r[n]
	w = med(wn, n); h = med(hn, n)
	printf "%-24s %-11s %9s  ratio %.2f (%.2f-%.2f)  ns/op %.1f, baseline %.1f  runs %d\n", key1, key2, key3, m, lo, hi, w, h, n
	n = 0
}
{
	if ($1 != key1 || $2 != key2 || $3 != key3) { flush(); key1 = $1; key2 = $2; key3 = $3 }
	n++; wn[n] = $4; hn[n] = $5; r[n] = $6
}
END { flush() }'
