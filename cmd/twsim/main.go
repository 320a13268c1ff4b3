// Command twsim runs the reference benchmark workloads of docs/workloads.md on
// the timing wheel and on the heap baselines, and prints a table plus the
// result lines ("WORKLOAD N ns_per_op checksum") and the "#" count lines.
//
// With no flags it runs every workload at a quick size (HOLD and HOLD-EXACT
// at N = 1000 and 100000; TIMEOUT, TIMEOUT-1M, SPARSE, SPARSE_P10 and MEM at
// their only size), each on the wheel and on the 4-ary heap for comparison:
//
//	go run ./cmd/twsim
//	go run ./cmd/twsim -workload hold -n 1000000 -reps 5
//	go run ./cmd/twsim -workload all -n 1000,100000,1000000
//	go run ./cmd/twsim -impl heap2 -workload timeout
//	go run ./cmd/twsim -workload hold-exact -n 1000000 -cpuprofile cpu.out
//
// Flags:
//
//	-workload hold|hold-exact|timeout|timeout-1m|sparse|mem|all  (default all)
//	-n        sizes for hold and hold-exact (comma-separated), and N for mem
//	-impl     wheel|heap2|heap4: the implementation measured (default wheel)
//	-compare  also run heap4 on each workload, interleaved, for the ratio column
//	-reps     repetitions of each run; the medians are reported
//	-clock    wall (default, as docs/workloads.md) or thread (the thread's CPU
//	          time: steadier on a busy machine, for A/B comparisons)
//	-check    check the invariants during the runs (slow; timings meaningless)
//	-cpuprofile, -memprofile  write pprof profiles (the comparison runs are
//	          then off unless -compare is given explicitly); the CPU samples
//	          of the timed regions carry the label timed=WORKLOAD, so
//	          go tool pprof -tagfocus timed=TIMEOUT-1M shows the timed loop alone
//
// For checks inside every call, build with the twcheck tag:
// go run -tags twcheck ./cmd/twsim -check.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/cmd/twsim/heaps"
	"github.com/gotimingwheel/timingwheel/cmd/twsim/workload"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return // -h: the usage was printed; asking for it is not an error
		}
		fmt.Fprintln(os.Stderr, "twsim:", err)
		os.Exit(2)
	}
}

// options are the parsed flags.
type options struct {
	workloads []string // canonical names, in run order
	sizes     []int    // HOLD / HOLD-EXACT sizes
	memN      int      // MEM's N
	impl      string
	compare   bool
	reps      int
	check     bool
	clock     string
	cpuprof   string
	memprof   string
}

var allWorkloads = []string{"hold", "hold-exact", "timeout", "timeout-1m", "sparse", "mem"}

var quickSizes = []int{1000, 100000}

// parseFlags turns the command line into options.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("twsim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	wl := fs.String("workload", "all", "hold|hold-exact|timeout|timeout-1m|sparse|mem|all (comma-separated list allowed)")
	ns := fs.String("n", "", "sizes for hold and hold-exact, comma-separated (default 1000,100000), and N for mem (default 1000000; with several sizes, the largest)")
	impl := fs.String("impl", "wheel", "implementation: wheel|heap2|heap4")
	compare := fs.Bool("compare", true, "also run heap4 on each workload (interleaved) for the ratio column")
	reps := fs.Int("reps", 1, "repetitions of each run, interleaved with the comparison runs; medians are reported")
	check := fs.Bool("check", false, "check invariants during the runs (slow: timings are meaningless)")
	clock := fs.String("clock", "wall", "wall: the monotonic clock (docs/workloads.md); thread: this thread's CPU time, steadier on a busy machine (for A/B runs)")
	cpuprof := fs.String("cpuprofile", "", "write a CPU profile of the measured implementation's runs to this file")
	memprof := fs.String("memprofile", "", "write a heap profile at the end to this file")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	o := options{impl: *impl, compare: *compare, reps: *reps, check: *check, clock: *clock, cpuprof: *cpuprof, memprof: *memprof}
	if o.clock != "wall" && o.clock != "thread" {
		return o, fmt.Errorf("-clock %q: want wall or thread", o.clock)
	}
	switch o.impl {
	case "wheel", "heap2", "heap4":
	default:
		return o, fmt.Errorf("-impl %q: want wheel, heap2 or heap4", o.impl)
	}
	if o.reps < 1 || o.reps > 1000 {
		return o, fmt.Errorf("-reps %d: want 1..1000", o.reps)
	}
	for _, w := range strings.Split(strings.ToLower(*wl), ",") {
		w = strings.TrimSpace(w)
		switch {
		case w == "all":
			o.workloads = append(o.workloads, allWorkloads...)
		case slices.Contains(allWorkloads, w):
			o.workloads = append(o.workloads, w)
		default:
			return o, fmt.Errorf("-workload %q: want one of %s or all", w, strings.Join(allWorkloads, ", "))
		}
	}
	o.sizes, o.memN = quickSizes, 1_000_000
	if *ns != "" {
		o.sizes = nil
		for _, f := range strings.Split(*ns, ",") {
			f = strings.TrimSpace(f)
			n, err := parseSize(f)
			if err != nil || n < 1 || n > 1<<31-1 {
				return o, fmt.Errorf("-n %q: want positive integers up to 2^31-1 (1e6 notation allowed)", f)
			}
			o.sizes = append(o.sizes, n)
		}
		o.memN = slices.Max(o.sizes)
	}
	// A profile should show the measured implementation, not the baseline.
	compareSet := false
	fs.Visit(func(f *flag.Flag) { compareSet = compareSet || f.Name == "compare" })
	if (o.cpuprof != "" || o.memprof != "") && !compareSet {
		o.compare = false
	}
	if o.impl == "heap4" {
		o.compare = false // it would compare heap4 with itself
	}
	return o, nil
}

// parseSize accepts 1000, 1e6 and 1_000_000.
func parseSize(s string) (int, error) {
	s = strings.ReplaceAll(s, "_", "")
	if n, err := strconv.Atoi(s); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != float64(int64(f)) {
		return 0, fmt.Errorf("not an integer: %q", s)
	}
	return int(f), nil
}

// job is one result line's worth of work: a workload at one size.
type job struct {
	kind string // hold, hold-exact, timeout, timeout-1m, sparse, sparse-p10, sparse-packed, mem
	n    int
}

func jobs(o options) []job {
	var js []job
	for _, w := range o.workloads {
		switch w {
		case "hold", "hold-exact":
			for _, n := range o.sizes {
				js = append(js, job{w, n})
			}
		case "sparse":
			js = append(js, job{"sparse", 10000}, job{"sparse-p10", 10000}, job{"sparse-packed", 10000})
		case "mem":
			js = append(js, job{"mem", o.memN})
		default:
			js = append(js, job{w, 0})
		}
	}
	return js
}

func wheelT(b uint) workload.Timers[alarm.Alarm]   { return workload.NewWheel(b) }
func heap2T(b uint) workload.Timers[*heaps.Item]   { return heaps.NewHeap2(b) }
func heap4T(b uint) workload.Timers[heaps.Handle4] { return heaps.NewHeap4(b) }

// runJob runs one job on one implementation.
func runJob(impl string, j job, check bool) workload.Result {
	switch impl {
	case "heap2":
		return runOn(heap2T, j, check)
	case "heap4":
		return runOn(heap4T, j, check)
	default:
		return runOn(wheelT, j, check)
	}
}

func runOn[H any](newT func(uint) workload.Timers[H], j job, check bool) workload.Result {
	switch j.kind {
	case "hold":
		return workload.Hold(newT, j.n, false, 0, check)
	case "hold-exact":
		return workload.Hold(newT, j.n, true, 0, check)
	case "timeout":
		return workload.Timeout(newT, false, check)
	case "timeout-1m":
		return workload.Timeout(newT, true, check)
	case "sparse":
		return workload.Sparse(newT, 0, false, check)
	case "sparse-p10":
		return workload.Sparse(newT, 10, false, check)
	case "sparse-packed":
		return workload.Sparse(newT, 0, true, check)
	case "mem":
		return workload.Mem(newT, j.n)
	}
	panic("unknown job " + j.kind)
}

// row is a job's outcome: the median of the measured implementation's
// repetitions, and of the comparison's.
type row struct {
	job  job
	res  workload.Result // measured implementation; NsPerOp is the median
	cmp  workload.Result // heap4, when compared
	has  bool            // cmp is set
	reps int
}

// median returns the result with the median NsPerOp (the lower middle one),
// after checking that every repetition fired the same alarms.
func median(rs []workload.Result) (workload.Result, error) {
	for _, r := range rs[1:] {
		if r.Checksum != rs[0].Checksum || r.Counts != rs[0].Counts {
			return rs[0], fmt.Errorf("%s N=%d: repetitions disagree: checksum %d (%s) and %d (%s)",
				r.Name, r.N, rs[0].Checksum, rs[0].Counts, r.Checksum, r.Counts)
		}
	}
	s := slices.Clone(rs)
	slices.SortFunc(s, func(a, b workload.Result) int {
		switch {
		case a.NsPerOp < b.NsPerOp:
			return -1
		case a.NsPerOp > b.NsPerOp:
			return 1
		}
		return 0
	})
	return s[(len(s)-1)/2], nil
}

func run(args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if o.clock == "thread" {
		if _, ok := threadCPU(); !ok {
			return errors.New("-clock thread: no thread CPU clock on this system")
		}
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		saved := workload.Now
		workload.Now = func() time.Duration { d, _ := threadCPU(); return d }
		defer func() { workload.Now = saved }()
	}
	if isTerminal(stderr) {
		workload.Progress = newBar(stderr).update
		defer func() { workload.Progress = nil }()
	}
	if o.cpuprof != "" {
		f, err := os.Create(o.cpuprof)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
		// Label the timed regions: go tool pprof -tagfocus timed=HOLD ...
		labels := map[string]context.Context{}
		workload.Timed = func(name string, on bool) {
			if !on {
				pprof.SetGoroutineLabels(context.Background())
				return
			}
			ctx, ok := labels[name]
			if !ok {
				ctx = pprof.WithLabels(context.Background(), pprof.Labels("timed", name))
				labels[name] = ctx
			}
			pprof.SetGoroutineLabels(ctx)
		}
		defer func() { workload.Timed = nil }()
	}
	fmt.Fprintf(stdout, "# twsim: impl=%s compare=%v reps=%d check=%v clock=%s %s %s/%s GOMAXPROCS=%d cpus=%d\n",
		o.impl, o.compare, o.reps, o.check, o.clock, runtime.Version(), runtime.GOOS, runtime.GOARCH,
		runtime.GOMAXPROCS(0), runtime.NumCPU())
	var rows []row
	var failed error
	for _, j := range jobs(o) {
		var mine, theirs []workload.Result
		for k := 0; k < o.reps; k++ { // interleaved: mine, heap4, mine, heap4, ...
			mine = append(mine, runJob(o.impl, j, o.check))
			if o.compare {
				theirs = append(theirs, runJob("heap4", j, false))
			}
		}
		rw := row{job: j, reps: o.reps, has: o.compare}
		if rw.res, err = median(mine); err != nil {
			return err
		}
		if o.compare {
			if rw.cmp, err = median(theirs); err != nil {
				return err
			}
		}
		printLines(stdout, rw)
		for _, r := range append(mine, theirs...) {
			if r.Err != nil && failed == nil {
				failed = fmt.Errorf("%s N=%d: invariant check failed: %w", r.Name, r.N, r.Err)
			}
		}
		if o.compare && (rw.cmp.Checksum != rw.res.Checksum || rw.cmp.Counts != rw.res.Counts) {
			return fmt.Errorf("%s N=%d: %s and heap4 disagree: checksum %d (%s) vs %d (%s)", rw.res.Name, rw.res.N,
				o.impl, rw.res.Checksum, rw.res.Counts, rw.cmp.Checksum, rw.cmp.Counts)
		}
		rows = append(rows, rw)
	}
	fmt.Fprintln(stdout)
	printTable(stdout, o.impl, rows)
	if o.memprof != "" {
		f, err := os.Create(o.memprof)
		if err != nil {
			return err
		}
		defer f.Close()
		runtime.GC()
		if err := pprof.WriteHeapProfile(f); err != nil {
			return err
		}
	}
	return failed
}

// printLines prints a job's result line and "#" lines as docs/workloads.md
// specifies them, then the comparison's as a comment. SPARSE_PACKED is not a
// workload of docs/workloads.md, so its result line is a comment too.
func printLines(w io.Writer, rw row) {
	line := rw.res.Line()
	if rw.job.kind == "sparse-packed" {
		line = "# " + line
	}
	fmt.Fprintln(w, line)
	for _, c := range rw.res.Comments {
		fmt.Fprintln(w, c)
	}
	if rw.has {
		fmt.Fprintf(w, "# heap4: %s\n", rw.cmp.Line())
	}
}

// printTable prints the summary table.
func printTable(w io.Writer, impl string, rows []row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "workload\tN\t%s ns/op\tallocs/op\tbytes/alarm\tchecksum\theap4 ns/op\tratio\t\n", impl)
	for _, rw := range rows {
		r := rw.res
		nsop, cmpNs, ratio := fmt.Sprintf("%.1f", r.NsPerOp), "-", "-"
		if r.Name == "MEM" {
			nsop = "-" // MEM's third column is bytes per alarm
		}
		if rw.has {
			cmpNs = fmt.Sprintf("%.1f", rw.cmp.NsPerOp)
			if r.Name == "MEM" {
				cmpNs = fmt.Sprintf("%.1f B", rw.cmp.BytesPerAlarm)
			}
			if r.NsPerOp > 0 {
				ratio = fmt.Sprintf("%.2f", rw.cmp.NsPerOp/r.NsPerOp)
			}
		}
		allocs := fmt.Sprintf("%.4f", r.AllocsPerOp)
		if r.Name == "MEM" {
			allocs = "-"
		}
		bpa := "-"
		if r.BytesPerAlarm != 0 {
			bpa = fmt.Sprintf("%.1f", r.BytesPerAlarm)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%d\t%s\t%s\t\n", r.Name, r.N, nsop, allocs, bpa, r.Checksum, cmpNs, ratio)
	}
	tw.Flush()
	fmt.Fprintf(w, "# ratio = heap4 / %s (higher is better for %s); MEM: bytes per alarm instead of ns/op.\n", impl, impl)
	fmt.Fprintln(w, "# SPARSE_PACKED: the SPARSE draws mod 2^14, the short-span baseline for SPARSE (not a docs/workloads.md line).")
	fmt.Fprintln(w, "# bytes/alarm: live heap of the timers per live alarm after the fill (TIMEOUT: at the end).")
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// bar draws a progress bar on a terminal, at most ten times a second.
type bar struct {
	w    io.Writer
	last time.Time
}

func newBar(w io.Writer) *bar { return &bar{w: w} }

func (b *bar) update(name string, done, total int) {
	now := time.Now()
	if done < total && now.Sub(b.last) < 100*time.Millisecond {
		return
	}
	b.last = now
	fmt.Fprint(b.w, renderBar(name, done, total))
	if done >= total {
		fmt.Fprint(b.w, "\r\033[K")
	}
}

// renderBar returns one redrawing line: "\r[####....] NAME 42%".
func renderBar(name string, done, total int) string {
	const width = 30
	if total <= 0 {
		total = 1
	}
	done = min(max(done, 0), total)
	k := done * width / total
	return fmt.Sprintf("\r[%s%s] %-12s %3d%%", strings.Repeat("#", k), strings.Repeat(".", width-k), name, done*100/total)
}
