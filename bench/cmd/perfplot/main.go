// Command perfplot runs HOLD and HOLD-EXACT (docs/workloads.md) over N = 1e2 ..
// 1e7 on the wheel, heap2 and heap4, interleaved (wheel, heap2, heap4,
// wheel, ...), and draws the median ns per fired event against N, log-log,
// into an SVG with gonum's plot. It prints the measurements as a table too.
//
//	cd bench && go run ./cmd/perfplot -o ../docs/perf.svg
//	go run ./cmd/perfplot -max 1e6 -reps 1 -h 500000 -o /tmp/quick.svg
package main

import (
	"flag"
	"fmt"
	"image/color"
	"log"
	"math"
	"os"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/cmd/twsim/heaps"
	"github.com/gotimingwheel/timingwheel/cmd/twsim/workload"
)

func wheelT(b uint) workload.Timers[alarm.Alarm]   { return workload.NewWheel(b) }
func heap2T(b uint) workload.Timers[*heaps.Item]   { return heaps.NewHeap2(b) }
func heap4T(b uint) workload.Timers[heaps.Handle4] { return heaps.NewHeap4(b) }

func hold(impl string, n int, exact bool, h int) workload.Result {
	switch impl {
	case "heap2":
		return workload.Hold(heap2T, n, exact, h, false)
	case "heap4":
		return workload.Hold(heap4T, n, exact, h, false)
	}
	return workload.Hold(wheelT, n, exact, h, false)
}

var (
	impls  = []string{"wheel", "heap2", "heap4"}
	colors = map[string]color.Color{
		"wheel": color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
		"heap2": color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
		"heap4": color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	}
)

func main() {
	out := flag.String("o", "../docs/perf.svg", "SVG file to write")
	minN := flag.Float64("min", 100, "smallest N (a power of ten)")
	maxN := flag.Float64("max", 1e7, "largest N (powers of ten from -min)")
	reps := flag.Int("reps", 3, "interleaved repetitions per point; the median is drawn")
	h := flag.Int("h", 0, "fired events per run (0: the workloads' H, 5e6 for HOLD and 2e6 for HOLD-EXACT)")
	flag.Parse()

	var sizes []int
	for n := int(*minN); float64(n) <= *maxN; n *= 10 {
		sizes = append(sizes, n)
	}
	kinds := []struct {
		name  string
		exact bool
	}{{"HOLD", false}, {"HOLD-EXACT", true}}

	// ns[kind][impl][i] is the median at sizes[i].
	ns := map[string]map[string][]float64{}
	fmt.Printf("%-10s %9s %10s %10s %10s  %s\n", "workload", "N", "wheel", "heap2", "heap4", "checksum")
	for _, k := range kinds {
		ns[k.name] = map[string][]float64{}
		for _, n := range sizes {
			runs := map[string][]float64{}
			var cs uint64
			for r := 0; r < *reps; r++ {
				for _, impl := range impls {
					res := hold(impl, n, k.exact, *h)
					if (r > 0 || impl != impls[0]) && res.Checksum != cs {
						log.Fatalf("%s N=%d: %s checksum %d, expected %d", k.name, n, impl, res.Checksum, cs)
					}
					cs = res.Checksum
					runs[impl] = append(runs[impl], res.NsPerOp)
					fmt.Fprintf(os.Stderr, "%s N=%d %s: %.1f ns/op\n", k.name, n, impl, res.NsPerOp)
				}
			}
			var row []string
			for _, impl := range impls {
				m := median(runs[impl])
				ns[k.name][impl] = append(ns[k.name][impl], m)
				row = append(row, fmt.Sprintf("%10.1f", m))
			}
			fmt.Printf("%-10s %9d %s  %d\n", k.name, n, strings.Join(row, " "), cs)
		}
	}

	p := plot.New()
	p.Title.Text = "HOLD (1 µs precision, solid) and HOLD-EXACT (1 ns, dashed): time per fired event"
	p.X.Label.Text = "N (live alarms)"
	p.Y.Label.Text = "ns per event (median)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	for _, k := range kinds {
		for _, impl := range impls {
			pts := make(plotter.XYs, len(sizes))
			for i, n := range sizes {
				pts[i].X, pts[i].Y = float64(n), ns[k.name][impl][i]
			}
			line, points, err := plotter.NewLinePoints(pts)
			if err != nil {
				log.Fatal(err)
			}
			line.Color, points.Color = colors[impl], colors[impl]
			line.Width = vg.Points(1.5)
			if k.exact {
				line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
				points.Shape = draw.TriangleGlyph{}
			} else {
				points.Shape = draw.CircleGlyph{}
			}
			p.Add(line, points)
			p.Legend.Add(k.name+" "+impl, line, points)
		}
	}
	p.Add(plotter.NewGrid())
	if err := p.Save(9*vg.Inch, 6*vg.Inch, *out); err != nil {
		log.Fatal(err)
	}
	fmt.Println("wrote", *out)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return math.NaN()
	}
	return s[(len(s)-1)/2]
}
