// Command twsim runs the reference benchmark workloads of docs/workloads.md on
// the timing wheel and on the heap baselines, and prints a table plus the
// result lines ("WORKLOAD N ns_per_op checksum") and the "#" count lines.
// Its clock workloads (CLOCK-NEW, CLOCK-STEP, this project's additions) run
// simclock against a container/heap clock in the same way, and its
// simulation workloads (MM1, MM10, RPC, also this project's) run a
// discrete-event simulation on the wheel's Step loop and on simclock against
// the container/heap event list a Go author writes by hand.
//
// With no flags it runs every workload at a quick size (HOLD and HOLD-EXACT
// at N = 1000 and 100000; TIMEOUT, TIMEOUT-1M, SPARSE, SPARSE_P10, MEM and
// the simulations at their only size; CLOCK-NEW and CLOCK-STEP at N = 1000),
// each on the wheel and, for comparison, on the 4-ary heap (the clock
// workloads: simclock and the heap clock; the simulations: the wheel's Step
// loop and simclock, and the event heap):
//
//	go run ./cmd/twsim
//	go run ./cmd/twsim -workload hold -n 1000000 -reps 5
//	go run ./cmd/twsim -workload all -n 1000,100000,1000000
//	go run ./cmd/twsim -workload clock-new,clock-step -reps 3
//	go run ./cmd/twsim -workload mm1,mm10,rpc -clock thread -reps 3
//	go run ./cmd/twsim -impl heap2 -workload timeout
//	go run ./cmd/twsim -workload hold-exact -n 1000000 -cpuprofile cpu.out
//	go run ./cmd/twsim -workload hold -n 1e7 -isolate
//
// Flags:
//
//	-workload hold|hold-exact|timeout|timeout-1m|sparse|mem|clock-new|clock-step|mm1|mm10|rpc|all
//	          (default all; a comma-separated list allowed; mm1, mm10 and rpc
//	          each run at 1 ns and at 2^19 ns, the _P19 rows)
//	-n        sizes for hold, hold-exact, clock-new and clock-step
//	          (comma-separated), and N for mem
//	-impl     wheel|heap2|heap4: the implementation measured (default wheel;
//	          the clock workloads always measure simclock, the simulations
//	          the wheel and simclock, each on a row of its own)
//	-compare  also run heap4 (the heap clock on the clock workloads, the
//	          event heap on the simulations) on each workload, interleaved,
//	          for the ratio column
//	-reps     repetitions of each run; the medians are reported
//	-isolate  run each repetition of each implementation on each row in a
//	          child process of its own, so that the peak RSS column is that
//	          row's alone (and a heap4 RSS column is added)
//	-prealloc HOLD and HOLD-EXACT give the wheel (config.WithCapacity(N))
//	          and heap4 room for the row's N alarms up front
//	-clock    wall (default, as docs/workloads.md) or thread (the thread's CPU
//	          time: steadier on a busy machine, for A/B comparisons)
//	-check    check the invariants during the runs (the clock workloads and
//	          the simulations: that each callback or event runs at its time,
//	          in order; slow; timings meaningless)
//	-cpuprofile, -memprofile  write pprof profiles (the comparison runs are
//	          then off unless -compare is given explicitly); the CPU samples
//	          of the timed regions carry the label timed=WORKLOAD, so
//	          go tool pprof -tagfocus timed=TIMEOUT-1M shows the timed loop alone
//
// The peak RSS column is the process's peak resident set size (VmHWM of
// /proc/self/status, Linux only) read after the row: without -isolate it is
// the peak of the whole run up to and including that row.
//
// For checked mode as well, build with the twcheck tag: every mutating call
// of the wheel, its queue and simclock then checks what it touched, and the
// whole Invariant() runs on a schedule whose cost per call stays a constant
// factor. TWCHECK=full in the environment runs the whole Invariant() after
// every call instead, which costs O(slots + alarms) per call: for small
// sizes only.
//
//	go run -tags twcheck ./cmd/twsim -check
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
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
	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/simclock"
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
	workloads  []string // canonical names, in run order
	sizes      []int    // HOLD / HOLD-EXACT sizes
	clockSizes []int    // CLOCK-NEW / CLOCK-STEP sizes
	memN       int      // MEM's N
	impl       string
	compare    bool
	reps       int
	check      bool
	clock      string
	cpuprof    string
	memprof    string
	isolate    bool
	prealloc   bool   // HOLD, HOLD-EXACT: capacity for N alarms up front
	child      string // -job: run this one job once and print it as JSON (for -isolate)
}

var allWorkloads = []string{"hold", "hold-exact", "timeout", "timeout-1m", "sparse", "mem", "clock-new", "clock-step", "mm1", "mm10", "rpc"}

var (
	quickSizes      = []int{1000, 100000}
	quickClockSizes = []int{1000}                       // clock workloads in -workload all
	clockSizes      = []int{100, 1000, 10_000, 100_000} // clock workloads named in -workload
)

// parseFlags turns the command line into options.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("twsim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	wl := fs.String("workload", "all", "hold|hold-exact|timeout|timeout-1m|sparse|mem|clock-new|clock-step|mm1|mm10|rpc|all (comma-separated list allowed)")
	ns := fs.String("n", "", "sizes for hold and hold-exact, comma-separated (default 1000,100000), for clock-new and clock-step (default 100,1000,10000,100000, or 1000 within all), and N for mem (default 1000000; with several sizes, the largest)")
	impl := fs.String("impl", "wheel", "implementation: wheel|heap2|heap4")
	compare := fs.Bool("compare", true, "also run heap4 (the heap clock, the event heap) on each workload (interleaved) for the ratio column")
	reps := fs.Int("reps", 1, "repetitions of each run, interleaved with the comparison runs; medians are reported")
	check := fs.Bool("check", false, "check invariants during the runs (slow: timings are meaningless)")
	clock := fs.String("clock", "wall", "wall: the monotonic clock (docs/workloads.md); thread: this thread's CPU time, steadier on a busy machine (for A/B runs)")
	cpuprof := fs.String("cpuprofile", "", "write a CPU profile of the measured implementation's runs to this file")
	memprof := fs.String("memprofile", "", "write a heap profile at the end to this file")
	isolate := fs.Bool("isolate", false, "run each repetition of each implementation on each row in a child process, so that peak RSS is per row")
	prealloc := fs.Bool("prealloc", false, "HOLD and HOLD-EXACT: give the wheel (config.WithCapacity) and heap4 room for the row's N alarms up front")
	child := fs.String("job", "", "internal, for -isolate: run the job KIND:N:IMPL once and print its result as JSON")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	o := options{impl: *impl, compare: *compare, reps: *reps, check: *check, clock: *clock, cpuprof: *cpuprof,
		memprof: *memprof, isolate: *isolate, prealloc: *prealloc, child: *child}
	if o.isolate && (o.cpuprof != "" || o.memprof != "") {
		return o, errors.New("-isolate with a profile: the runs are in child processes; profile without -isolate")
	}
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
	o.clockSizes = quickClockSizes
	for _, w := range strings.Split(strings.ToLower(*wl), ",") {
		w = strings.TrimSpace(w)
		switch {
		case w == "all":
			o.workloads = append(o.workloads, allWorkloads...)
		case slices.Contains(allWorkloads, w):
			o.workloads = append(o.workloads, w)
			if strings.HasPrefix(w, "clock-") {
				o.clockSizes = clockSizes // named: the full sizes
			}
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
		o.clockSizes = o.sizes
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
	kind string // hold, hold-exact, timeout, timeout-1m, sparse, sparse-p10, sparse-packed, mem, clock-new, clock-step, mm1, mm1-p19, mm10, mm10-p19, rpc, rpc-p19
	n    int
}

// simKinds are the kinds of the simulation workloads, each also run at
// 2^19 ns precision as KIND-p19.
var simKinds = []string{"mm1", "mm10", "rpc"}

// isClock reports whether j is a clock workload (simclock against the heap
// clock).
func (j job) isClock() bool { return strings.HasPrefix(j.kind, "clock-") }

// isSim reports whether j is a simulation workload (the wheel's Step loop
// and simclock against the container/heap event list).
func (j job) isSim() bool { return slices.Contains(simKinds, strings.TrimSuffix(j.kind, "-p19")) }

// impls returns the implementations a job measures, each with a row of its
// own, and the one they are compared with.
func (j job) impls(impl string) (mine []string, theirs string) {
	switch {
	case j.isClock():
		return []string{"simclock"}, "heapclock"
	case j.isSim():
		return []string{"wheel", "simclock"}, "eventheap"
	}
	return []string{impl}, "heap4"
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
		case "mm1", "mm10", "rpc":
			js = append(js, job{w, 0}, job{w + "-p19", 0})
		case "mem":
			js = append(js, job{"mem", o.memN})
		case "clock-new", "clock-step":
			for _, n := range o.clockSizes {
				js = append(js, job{w, n})
			}
		default:
			js = append(js, job{w, 0})
		}
	}
	return js
}

func wheelT(b uint) workload.Timers[alarm.Alarm]   { return workload.NewWheel(b) }
func heap2T(b uint) workload.Timers[*heaps.Item]   { return heaps.NewHeap2(b) }
func heap4T(b uint) workload.Timers[heaps.Handle4] { return heaps.NewHeap4(b) }

func simclockC() workload.Clock[simclock.Timer]     { return simclock.New(workload.ClockEpoch) }
func heapClockC() workload.Clock[*heaps.ClockTimer] { return heaps.NewClock(workload.ClockEpoch) }

// The engines of the simulation workloads besides the wheel's
// (workload.StepSim).
func simclockS(precision time.Duration, codes int, run func(int64, int32)) workload.Sim[simclock.Timer] {
	return workload.ClockSim(simclock.New(workload.ClockEpoch, simclock.WithPrecision(precision)), codes, run)
}
func eventHeapS(_ time.Duration, _ int, run func(int64, int32)) workload.Sim[*heaps.Event] {
	return heaps.NewEventHeap(run)
}

// runJob runs one job on one implementation.
// With prealloc, HOLD and HOLD-EXACT give the wheel and heap4 room for
// their N alarms up front (config.WithCapacity, and heap4's arrays).
func runJob(impl string, j job, check, prealloc bool) workload.Result {
	if j.isSim() {
		switch impl {
		case "wheel":
			return runSim(workload.StepSim, j, check)
		case "simclock":
			return runSim(simclockS, j, check)
		case "eventheap":
			return runSim(eventHeapS, j, check)
		}
		panic("no engine " + impl + " for " + j.kind)
	}
	n := 0
	if prealloc && (j.kind == "hold" || j.kind == "hold-exact") {
		n = j.n
	}
	switch impl {
	case "simclock":
		return runClock(simclockC, j, check)
	case "heapclock":
		return runClock(heapClockC, j, check)
	case "heap2":
		return runOn(heap2T, j, check)
	case "heap4":
		if n > 0 {
			return runOn(func(b uint) workload.Timers[heaps.Handle4] { return heaps.NewHeap4Cap(b, n) }, j, check)
		}
		return runOn(heap4T, j, check)
	default:
		if n > 0 {
			return runOn(func(b uint) workload.Timers[alarm.Alarm] { return workload.NewWheel(b, config.WithCapacity(n)) }, j, check)
		}
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

func runClock[T any](newC func() workload.Clock[T], j job, check bool) workload.Result {
	switch j.kind {
	case "clock-new":
		return workload.ClockNew(newC, j.n, 0, check)
	case "clock-step":
		return workload.ClockStep(newC, j.n, 0, check)
	}
	panic("unknown clock job " + j.kind)
}

// runSim runs a simulation job on an engine: at 1 ns, or at the precision
// time.Millisecond gives (2^19 ns) for the -p19 kinds.
func runSim[H any](newSim workload.NewSim[H], j job, check bool) workload.Result {
	precision := time.Nanosecond
	if strings.HasSuffix(j.kind, "-p19") {
		precision = time.Millisecond
	}
	switch strings.TrimSuffix(j.kind, "-p19") {
	case "mm1":
		return workload.MM1(newSim, precision, check)
	case "mm10":
		return workload.MM10(newSim, precision, check)
	case "rpc":
		return workload.RPC(newSim, precision, check)
	}
	panic("unknown simulation job " + j.kind)
}

// row is a job's outcome: the median of the measured implementation's
// repetitions, and of the comparison's.
type row struct {
	job    job
	impl   string          // the measured implementation
	res    workload.Result // measured implementation; NsPerOp is the median
	cmp    workload.Result // heap4, when compared
	has    bool            // cmp is set
	reps   int
	rss    int64 // peak RSS in bytes (0: unknown): the process's, or with -isolate the measured implementation's children's
	cmpRSS int64 // with -isolate: the comparison's children's peak RSS
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
	if o.child != "" {
		return runChild(o, stdout)
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
		mImpls, tImpl := j.impls(o.impl)
		// once runs an implementation once: in process, or with -isolate in
		// a child process, which also gives its peak RSS.
		once := func(impl string, check bool) (workload.Result, int64, error) {
			if o.isolate {
				return runIsolated(o, j, impl, check, stderr)
			}
			return runJob(impl, j, check, o.prealloc), 0, nil
		}
		mine := make([][]workload.Result, len(mImpls))
		rss := make([]int64, len(mImpls))
		var theirs []workload.Result
		var cmpRSS int64
		for k := 0; k < o.reps; k++ { // interleaved: mine, heap4, mine, heap4, ...
			for i, impl := range mImpls {
				r, m, err := once(impl, o.check)
				if err != nil {
					return err
				}
				mine[i], rss[i] = append(mine[i], r), max(rss[i], m)
			}
			if o.compare {
				r, m, err := once(tImpl, false)
				if err != nil {
					return err
				}
				theirs, cmpRSS = append(theirs, r), max(cmpRSS, m)
			}
		}
		var jrows []row
		for i, impl := range mImpls {
			rw := row{job: j, impl: impl, reps: o.reps, has: o.compare, rss: rss[i], cmpRSS: cmpRSS}
			if !o.isolate {
				rw.rss, _ = peakRSS()
			}
			if rw.res, err = median(mine[i]); err != nil {
				return err
			}
			if o.compare {
				if rw.cmp, err = median(theirs); err != nil {
					return err
				}
			}
			jrows = append(jrows, rw)
		}
		printLines(stdout, jrows)
		for _, rs := range append(mine, theirs) {
			for _, r := range rs {
				if r.Err != nil && failed == nil {
					what := "invariant check"
					if j.isClock() || j.isSim() {
						what = "check"
					}
					failed = fmt.Errorf("%s N=%d: %s failed: %w", r.Name, r.N, what, r.Err)
				}
			}
		}
		// Every implementation must have fired the same alarms.
		first := jrows[0]
		ran := map[string]workload.Result{}
		for _, rw := range jrows[1:] {
			ran[rw.impl] = rw.res
		}
		if o.compare {
			ran[tImpl] = first.cmp
		}
		for impl, r := range ran {
			if r.Checksum != first.res.Checksum || r.Counts != first.res.Counts {
				return fmt.Errorf("%s N=%d: %s and %s disagree: checksum %d (%s) vs %d (%s)", first.res.Name, first.res.N,
					first.impl, impl, first.res.Checksum, first.res.Counts, r.Checksum, r.Counts)
			}
		}
		rows = append(rows, jrows...)
	}
	fmt.Fprintln(stdout)
	printTable(stdout, o.impl, rows, o.isolate && o.compare)
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
// specifies them, then, as comments, the result lines of the job's other
// measured implementations (simclock, on the simulation workloads) and of
// the comparison. SPARSE_PACKED is not a workload of docs/workloads.md, so
// its result line is a comment too.
func printLines(w io.Writer, rows []row) {
	first := rows[0]
	line := first.res.Line()
	if first.job.kind == "sparse-packed" {
		line = "# " + line
	}
	fmt.Fprintln(w, line)
	for _, c := range first.res.Comments {
		fmt.Fprintln(w, c)
	}
	for _, rw := range rows[1:] {
		fmt.Fprintf(w, "# %s: %s\n", rw.impl, rw.res.Line())
	}
	if first.has {
		_, other := first.job.impls("")
		fmt.Fprintf(w, "# %s: %s\n", other, first.cmp.Line())
		if first.job.isClock() || first.job.isSim() { // the table has no column for these
			fmt.Fprintf(w, "# %s: %s N=%d bytes_per_alarm=%.1f allocs_per_op=%.4f\n",
				other, first.cmp.Name, first.cmp.N, first.cmp.BytesPerAlarm, first.cmp.AllocsPerOp)
		}
	}
}

// mib formats a byte count in MiB, "-" for 0 (unknown).
func mib(b int64) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(b)/(1<<20))
}

// printTable prints the summary table; with cmpRSS, a column of the
// comparison's peak RSS (from -isolate) before the ratio.
func printTable(w io.Writer, impl string, rows []row, cmpRSS bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	extraHead := ""
	if cmpRSS {
		extraHead = "heap4 RSS MiB\t"
	}
	fmt.Fprintf(tw, "workload\tN\t%s ns/op\tallocs/op\tbytes/alarm\tpeak RSS MiB\tchecksum\theap4 ns/op\t%sratio\t\n", impl, extraHead)
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
		extra := ""
		if cmpRSS {
			extra = "-\t"
			if rw.has {
				extra = mib(rw.cmpRSS) + "\t"
			}
		}
		name := r.Name
		if rw.job.isSim() && rw.impl != "wheel" {
			name += " " + rw.impl
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%d\t%s\t%s%s\t\n", name, r.N, nsop, allocs, bpa, mib(rw.rss), r.Checksum, cmpNs, extra, ratio)
	}
	tw.Flush()
	fmt.Fprintf(w, "# ratio = heap4 / %s (higher is better for %s); MEM: bytes per alarm instead of ns/op.\n", impl, impl)
	fmt.Fprintln(w, "# SPARSE_PACKED: the SPARSE draws mod 2^14, the short-span baseline for SPARSE (not a docs/workloads.md line).")
	fmt.Fprintln(w, "# bytes/alarm: live heap of the timers per live alarm after the fill (TIMEOUT: at the end).")
	if slices.ContainsFunc(rows, func(rw row) bool { return rw.job.isClock() }) {
		fmt.Fprintf(w, "# CLOCK-NEW, CLOCK-STEP: simclock in the %s column, the container/heap clock in the heap4 columns; ratio = heap clock / simclock.\n", impl)
		fmt.Fprintln(w, "#   CLOCK-NEW: ns per timer (new clock, schedule, fire); CLOCK-STEP: ns per Step; bytes/alarm: live heap per pending timer.")
	}
	if slices.ContainsFunc(rows, func(rw row) bool { return rw.job.isSim() }) {
		fmt.Fprintf(w, "# MM1, MM10, RPC: the wheel's Step loop in the %s column (simclock on the rows so marked), the container/heap event list in the heap4 columns; ratio = event heap / engine.\n", impl)
		fmt.Fprintln(w, "#   _P19: at the precision time.Millisecond gives (2^19 ns). ns/op: per event; bytes/alarm: live heap per pending event after the warm-up.")
	}
	if cmpRSS {
		fmt.Fprintln(w, "# peak RSS MiB: the largest VmHWM of the row's child processes (-isolate), one per repetition and implementation.")
	} else {
		fmt.Fprintln(w, "# peak RSS MiB: this process's VmHWM after the row, so the peak of the whole run so far (-isolate: per row).")
	}
}

// childResult is what a child process of -isolate prints: the result of
// one run and the child's peak RSS.
type childResult struct {
	Res     workload.Result
	Err     string // Res.Err, which does not go through JSON
	PeakRSS int64
}

// runChild runs o.child ("KIND:N:IMPL") once and prints its childResult.
func runChild(o options, stdout io.Writer) error {
	f := strings.Split(o.child, ":")
	if len(f) != 3 {
		return fmt.Errorf("-job %q: want KIND:N:IMPL", o.child)
	}
	n, err := strconv.Atoi(f[1])
	kinds := append(slices.Clone(allWorkloads), "sparse-p10", "sparse-packed", "mm1-p19", "mm10-p19", "rpc-p19")
	if err != nil || !slices.Contains(kinds, f[0]) ||
		!slices.Contains([]string{"wheel", "heap2", "heap4", "simclock", "heapclock", "eventheap"}, f[2]) {
		return fmt.Errorf("-job %q: want KIND:N:IMPL with a known kind and implementation", o.child)
	}
	r := runJob(f[2], job{f[0], n}, o.check, o.prealloc)
	out := childResult{Res: r}
	if r.Err != nil {
		out.Err, out.Res.Err = r.Err.Error(), nil
	}
	out.PeakRSS, _ = peakRSS()
	return json.NewEncoder(stdout).Encode(out)
}

// runIsolated runs one job once on impl in a child process (this program
// with -job), and returns its result and peak RSS.
func runIsolated(o options, j job, impl string, check bool, stderr io.Writer) (workload.Result, int64, error) {
	exe, err := os.Executable()
	if err != nil {
		return workload.Result{}, 0, fmt.Errorf("-isolate: %w", err)
	}
	args := []string{"-job", fmt.Sprintf("%s:%d:%s", j.kind, j.n, impl), "-clock", o.clock, fmt.Sprintf("-check=%v", check), fmt.Sprintf("-prealloc=%v", o.prealloc)}
	cmd := exec.Command(exe, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, stderr
	if err := cmd.Run(); err != nil {
		return workload.Result{}, 0, fmt.Errorf("-isolate: %s %s: %w", exe, strings.Join(args, " "), err)
	}
	var c childResult
	if err := json.Unmarshal(out.Bytes(), &c); err != nil {
		return workload.Result{}, 0, fmt.Errorf("-isolate: reading the child's result %q: %w", out.String(), err)
	}
	if c.Err != "" {
		c.Res.Err = errors.New(c.Err)
	}
	return c.Res, c.PeakRSS, nil
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
