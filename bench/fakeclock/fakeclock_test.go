package fakeclock

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

var tableOut = flag.String("fakeclock.table", "", "run the side-by-side measurements and write the Markdown table to this file, relative to bench/fakeclock (and the chart beside it, .svg)")

// handWritten marks the end of the generated part of the Markdown file:
// TestTable keeps whatever follows it.
const handWritten = "<!-- end of generated part; hand-written notes below are kept -->"

// checkRun checks that order is a permutation of the delays' indices.
func checkRun(t testing.TB, name string, n int, order []int) {
	t.Helper()
	if len(order) != n {
		t.Fatalf("%s: %d callbacks ran, want %d", name, len(order), n)
	}
	seen := make([]bool, n)
	for _, i := range order {
		if i < 0 || i >= n || seen[i] {
			t.Fatalf("%s: callback %d ran twice or is unknown", name, i)
		}
		seen[i] = true
	}
}

// TestEveryCallbackRuns runs every driver on a small workload: each must run
// every callback exactly once; simclock must run them in time order, FIFO at
// equal times. The others' order is only reported.
func TestEveryCallbackRuns(t *testing.T) {
	for _, d := range Drivers {
		for _, tied := range []bool{false, true} {
			ds := Delays(100, 1)
			if tied {
				ds = TiedDelays(100, 1)
			}
			order, _, err := d.Run(t, ds, false)
			if err != nil {
				t.Fatalf("%s: %v", d.Name, err)
			}
			checkRun(t, d.Name, len(ds), order)
			inOrder, fifo := InTimeOrder(ds, order), FIFOAtTies(ds, order)
			t.Logf("%s (ties %v): time order %v, FIFO at ties %v", d.Name, tied, inOrder, fifo)
			if d.Name == "simclock" && (!inOrder || !fifo) {
				t.Fatalf("simclock: time order %v, FIFO at ties %v; want both", inOrder, fifo)
			}
			order, seen, err := d.Run(t, ds, true)
			if errors.Is(err, errDeadlock) {
				continue
			}
			if err != nil {
				t.Fatalf("%s reading the clock: %v", d.Name, err)
			}
			checkRun(t, d.Name, len(ds), order)
			own := SeesOwnTime(ds, order, seen)
			t.Logf("%s (ties %v): callbacks see their own time %v", d.Name, tied, own)
			if d.Name == "simclock" && !own {
				t.Fatal("simclock: a callback did not see its own time")
			}
		}
	}
}

func TestOrderChecks(t *testing.T) {
	ds := []time.Duration{3, 1, 3, 2}
	for _, c := range []struct {
		order         []int
		inOrder, fifo bool
	}{
		{[]int{1, 3, 0, 2}, true, true},
		{[]int{1, 3, 2, 0}, true, false},
		{[]int{3, 1, 0, 2}, false, true},
	} {
		if InTimeOrder(ds, c.order) != c.inOrder || FIFOAtTies(ds, c.order) != c.fifo {
			t.Errorf("order %v: InTimeOrder %v, FIFOAtTies %v; want %v, %v",
				c.order, InTimeOrder(ds, c.order), FIFOAtTies(ds, c.order), c.inOrder, c.fifo)
		}
	}
}

// BenchmarkAfterFunc: N AfterFunc timers scheduled, advanced past, every
// callback awaited, per clock (testing/synctest needs a *testing.T and is
// measured by TestTable only). Sizes where a clock takes seconds per run are
// left out.
func BenchmarkAfterFunc(b *testing.B) {
	limit := map[string]int{"clockwork": 10_000, "quartz": 10_000, "benbjohnson/clock": 100}
	for _, n := range []int{100, 1_000, 10_000, 100_000} {
		ds := Delays(n, 1)
		for _, d := range Drivers {
			if d.Name == "testing/synctest" || limit[d.Name] > 0 && n > limit[d.Name] {
				continue
			}
			b.Run(fmt.Sprintf("%s/n=%d", strings.ReplaceAll(d.Name, " ", "_"), n), func(b *testing.B) {
				for range b.N {
					order, _, err := d.Run(b, ds, false)
					if err != nil {
						b.Fatal(err)
					}
					checkRun(b, d.Name, n, order)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/timer")
			})
		}
	}
}

// cell is one measurement: the fastest real time of the runs, or why there
// is none.
type cell struct {
	ns      float64
	inOrder bool
	why     string
}

// budget is the longest single run TestTable starts: a size whose predicted
// time is longer is skipped.
const budget = 30 * time.Second

// TestTable measures every driver at N = 1e2 .. 1e5 and writes the table and
// chart. It runs only with -fakeclock.table.
func TestTable(t *testing.T) {
	if *tableOut == "" {
		t.Skip("run with -fakeclock.table FILE to measure")
	}
	sizes := []int{100, 1_000, 10_000, 100_000}
	cells := map[string][]cell{}
	prev := map[string][2]float64{} // the last two times measured
	for _, n := range sizes {
		ds := Delays(n, 1)
		// Decide which drivers run at this size.
		run := map[string]*cell{}
		for _, d := range Drivers {
			c := &cell{inOrder: true, ns: math.Inf(1)}
			p := prev[d.Name]
			switch {
			case d.MaxN > 0 && n > d.MaxN:
				c.why = "capped"
			case math.IsInf(p[0], 1):
				c.why = "skipped"
			case p[0] > 0 && predict(p[0], p[1]) > float64(budget):
				c.why = fmt.Sprintf("skipped (est. %s)", fmtDur(predict(p[0], p[1])))
			default:
				run[d.Name] = c
			}
			cells[d.Name] = append(cells[d.Name], cell{})
			if c.why != "" {
				cells[d.Name][len(cells[d.Name])-1] = *c
				prev[d.Name] = [2]float64{math.Inf(1), 0}
			}
		}
		// Interleave the drivers, round by round, and keep each one's
		// fastest run: the least disturbed by the machine's other load. A
		// driver whose run takes over a second runs once. The first round
		// at the first size only warms up.
		rounds := 5
		if n <= 1000 {
			rounds = 15
		}
		if n == sizes[0] {
			for _, d := range Drivers {
				if run[d.Name] != nil {
					d.Run(t, ds, false)
				}
			}
		}
		for rep := range rounds {
			for _, d := range Drivers {
				c := run[d.Name]
				if c == nil || c.why != "" || rep > 0 && c.ns > float64(time.Second) {
					continue
				}
				runtime.GC()
				start := time.Now()
				order, _, err := d.Run(t, ds, false)
				el := float64(time.Since(start))
				if err != nil {
					c.why = err.Error()
					continue
				}
				checkRun(t, d.Name, len(ds), order)
				c.inOrder = c.inOrder && InTimeOrder(ds, order)
				c.ns = min(c.ns, el)
			}
		}
		for _, d := range Drivers {
			if c := run[d.Name]; c != nil {
				cells[d.Name][len(cells[d.Name])-1] = *c
				p := prev[d.Name]
				prev[d.Name] = [2]float64{c.ns, p[0]}
				t.Logf("%s n=%d: %s, in order %v %s", d.Name, n, fmtDur(c.ns), c.inOrder, c.why)
			}
		}
	}
	ties, own := map[string]string{}, map[string]string{}
	for _, d := range Drivers {
		ties[d.Name] = tieCheck(t, d)
		own[d.Name] = ownTimeCheck(t, d)
	}
	md := table(sizes, cells, ties, own)
	md = append(md, "\n"+handWritten+"\n"...)
	if old, err := os.ReadFile(*tableOut); err == nil {
		if _, rest, ok := bytes.Cut(old, []byte(handWritten+"\n")); ok {
			md = append(md, rest...)
		}
	}
	if err := os.WriteFile(*tableOut, md, 0o644); err != nil {
		t.Fatal(err)
	}
	svg := strings.TrimSuffix(*tableOut, filepath.Ext(*tableOut)) + ".svg"
	if err := chart(sizes, cells, svg); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s and %s", *tableOut, svg)
}

// predict estimates the next size's time (10 times more timers) from the
// last two: at least linear growth, and the observed growth if faster.
func predict(prev, prevPrev float64) float64 {
	g := 10.0
	if prevPrev > 0 && prev/prevPrev > g {
		g = prev / prevPrev
	}
	return prev * g
}

// tieCheck runs 1000 timers on ten distinct times five times and says how
// often the callbacks ran in time order and FIFO at equal times.
func tieCheck(t *testing.T, d Driver) string {
	const runs = 5
	inOrder, fifo := 0, 0
	for r := range runs {
		ds := TiedDelays(1000, uint64(r))
		order, _, err := d.Run(t, ds, false)
		if err != nil {
			return err.Error()
		}
		checkRun(t, d.Name, len(ds), order)
		if InTimeOrder(ds, order) {
			inOrder++
		}
		if FIFOAtTies(ds, order) {
			fifo++
		}
	}
	return fmt.Sprintf("%s | %s", frac(inOrder, runs), frac(fifo, runs))
}

// ownTimeCheck runs 1000 timers at random delays three times, each callback
// reading the clock, and says how often every callback saw its own time.
func ownTimeCheck(t *testing.T, d Driver) string {
	const runs = 3
	ok := 0
	for r := range runs {
		ds := Delays(1000, uint64(10+r))
		order, seen, err := d.Run(t, ds, true)
		if err != nil {
			return err.Error()
		}
		checkRun(t, d.Name, len(ds), order)
		if SeesOwnTime(ds, order, seen) {
			ok++
		}
	}
	return frac(ok, runs)
}

func frac(k, n int) string {
	if k == n {
		return fmt.Sprintf("yes (%d/%d runs)", k, n)
	}
	return fmt.Sprintf("**no** (%d/%d runs)", k, n)
}

func fmtDur(ns float64) string {
	switch d := time.Duration(ns); {
	case d < time.Millisecond:
		return fmt.Sprintf("%.0f µs", ns/1e3)
	case d < time.Second:
		return fmt.Sprintf("%.1f ms", ns/1e6)
	default:
		return fmt.Sprintf("%.1f s", ns/1e9)
	}
}

func table(sizes []int, cells map[string][]cell, ties, own map[string]string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# simclock against other fake clocks\n\n")
	fmt.Fprintf(&b, "Generated by `cd bench && go test ./fakeclock -run TestTable -fakeclock.table ../../docs/perf-simclock.md -timeout 1h`\n")
	fmt.Fprintf(&b, "(%s, %s/%s, %d CPUs; a shared machine, so expect noise of tens of percent).\n\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	fmt.Fprintf(&b, "The workload: schedule N AfterFunc timers at delays drawn uniformly from [1 ns, 1 s), advance the clock past the last one, and wait until every callback has run. ")
	fmt.Fprintf(&b, "The clocks run interleaved after a warm-up round, 15 rounds for N <= 1000 and 5 above (one for a run over a second); each cell is the fastest run's real time, then the ratio to simclock (above 1: slower than simclock). ")
	fmt.Fprintf(&b, "A run predicted to take more than %v is skipped; benbjohnson/clock sleeps 1 ms of real time per timer it fires, so it is capped at N = 1e3.\n\n", budget)
	fmt.Fprintf(&b, "| clock |")
	for _, n := range sizes {
		fmt.Fprintf(&b, " N = %d |", n)
	}
	fmt.Fprintf(&b, "\n|---|")
	for range sizes {
		fmt.Fprintf(&b, "---:|")
	}
	fmt.Fprintln(&b)
	base := cells[Drivers[0].Name]
	for _, d := range Drivers {
		fmt.Fprintf(&b, "| %s |", d.Name)
		for i, c := range cells[d.Name] {
			switch {
			case c.why != "":
				fmt.Fprintf(&b, " %s |", c.why)
			case d.Name == Drivers[0].Name:
				fmt.Fprintf(&b, " %s |", fmtDur(c.ns))
			default:
				r := c.ns / base[i].ns
				prec := 1
				if r < 1 {
					prec = 2
				}
				fmt.Fprintf(&b, " %s (%.*f×) |", fmtDur(c.ns), prec, r)
			}
		}
		fmt.Fprintln(&b)
	}
	fmt.Fprintf(&b, "\n![time per run against N, log-log](perf-simclock.svg)\n\n")
	fmt.Fprintf(&b, "## Fire order\n\n")
	fmt.Fprintf(&b, "\"Time order, random delays\": in every measured run above, callbacks ran in ascending order of their timers' times. ")
	fmt.Fprintf(&b, "The tie check runs 1000 timers on only ten distinct times (1 ms .. 10 ms), five times: are they in time order, and at equal times in the order they were scheduled (FIFO)? ")
	fmt.Fprintf(&b, "\"Own time\": 1000 timers at random delays, three times, each callback reading the clock: did every callback see its own timer's time?\n\n")
	fmt.Fprintf(&b, "| clock | time order, random delays | time order, ties | FIFO at equal times | callback sees its own time | how the run is driven |\n|---|---|---|---|---|---|\n")
	for _, d := range Drivers {
		all := true
		for _, c := range cells[d.Name] {
			if c.why == "" && !c.inOrder {
				all = false
			}
		}
		ord := "yes"
		if !all {
			ord = "**no**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", d.Name, ord, ties[d.Name], own[d.Name], d.Note)
	}
	return b.Bytes()
}

func chart(sizes []int, cells map[string][]cell, path string) error {
	p := plot.New()
	p.Title.Text = "N AfterFunc timers: schedule, advance past all, wait for every callback"
	p.X.Label.Text = "N timers"
	p.Y.Label.Text = "real time per run (s)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = false, false // bottom right: the fast clocks at large N
	palette := []color.RGBA{
		{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, {R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
		{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, {R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
		{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}, {R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	}
	for k, d := range Drivers {
		var pts plotter.XYs
		for i, c := range cells[d.Name] {
			if c.why == "" {
				pts = append(pts, plotter.XY{X: float64(sizes[i]), Y: c.ns / 1e9})
			}
		}
		if len(pts) == 0 {
			continue
		}
		l, s, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		l.Color, s.Color = palette[k%len(palette)], palette[k%len(palette)]
		l.Width = vg.Points(1.5)
		s.Shape = draw.CircleGlyph{}
		p.Add(l, s)
		p.Legend.Add(d.Name, l, s)
	}
	return p.Save(8*vg.Inch, 5*vg.Inch, path)
}
