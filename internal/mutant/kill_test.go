//go:build twmutants

package mutant_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/internal/mutant"
)

// plan names, for each mutant, the killers the runner expects to fail with
// that mutant on, every one of them: the deterministic check that catches it
// (the exhaustive run, the equal-times runs, the overflow reach) and, where
// the structural invariants alone catch it, TestKillInvariantOnly. The table
// in docs/invariants.md (TW_MUTATION_MATRIX=1) runs every killer against
// every mutant.
var plan = map[string][]string{
	mutant.SlotOffByOne:      {"TestKillInvariantOnly", "TestKillExhaustive"},
	mutant.BitmapNotCleared:  {"TestKillInvariantOnly", "TestKillExhaustive"},
	mutant.CascadeAppends:    {"TestKillExhaustive", "TestKillEqualTimes"},
	mutant.CascadeLowest:     {"TestKillEqualTimes"},
	mutant.StaleMinAfterClr:  {"TestKillInvariantOnly", "TestKillExhaustive"},
	mutant.ClampWrong:        {"TestKillInvariantOnly", "TestKillExhaustive"},
	mutant.MinNotInvalidated: {"TestKillInvariantOnly", "TestKillExhaustive"},
	mutant.FirePastLevel0:    {"TestKillExhaustive"},
	mutant.NextAlarmOffByOne: {"TestKillExhaustive"},
	mutant.LengthNotCounted:  {"TestKillInvariantOnly", "TestKillExhaustive"},
	mutant.DueNotFreed:       {"TestKillInvariantOnly", "TestKillExhaustive"},
	mutant.HandleGenIgnored:  {"TestKillExhaustive"},
	mutant.FirePastReversed:  {"TestKillExhaustive"},
	mutant.FirePastStrict:    {"TestKillExhaustive"},
	mutant.MinTimesLevel0:    {"TestKillExhaustive"},
	mutant.RescheduleInPlace: {"TestKillExhaustive"},
	mutant.BeforeNowRejected: {"TestKillExhaustive"},
	mutant.LimitJumps:        {"TestKillInvariantOnly", "TestKillExhaustive"},
	mutant.ShrinkForwardLost: {"TestKillInvariantOnly", "TestKillExhaustive"},
	mutant.ClearKeepsOwner:   {"TestKillExhaustive"},
	mutant.OverflowShort:     {"TestKillExhaustive", "TestKillOverflowReach"},
	mutant.LimitOneMore:      {"TestKillExhaustive"},
	mutant.SlotMinKept:       {"TestKillExhaustive"},
}

// mayHang are the mutants known to make some killer loop forever (an endless
// loop in CollectTo); only for them does a child that runs out of time count
// as a kill. For any other mutant a timeout is a slow machine, not a catch.
var mayHang = map[string]bool{mutant.SlotOffByOne: true}

// killers are every killer test, in the order of the matrix's columns.
var killers = []string{"TestKillInvariantOnly", "TestKillExhaustive", "TestKillEqualTimes",
	"TestKillOverflowReach", "TestKillCheckWheelTiny", "TestKillCheckWheel", "TestKillCheckQueue"}

// childArgs bound the property tests in a child: rapid's checks and seed
// (fixed, so that a run is repeatable; TW_MUTATION_SEED changes it), and a
// short shrink (a kill needs one failure, not the smallest).
func childArgs() []string {
	seed := os.Getenv("TW_MUTATION_SEED")
	if seed == "" {
		seed = "1"
	}
	return []string{"-test.count=1", "-test.v", "-test.timeout=180s", "-rapid.checks=100",
		"-rapid.seed=" + seed, "-rapid.nofailfile", "-rapid.shrinktime=1s"}
}

type outcome struct {
	mutant  string
	killers []string
	failed  []string // killers that failed
	hung    bool     // the child ran out of time
	elapsed time.Duration
	output  string
	err     error
}

var (
	failRE    = regexp.MustCompile(`(?m)^\s*--- FAIL: (TestKill\w+)`)
	runningRE = regexp.MustCompile(`(?m)^\s+(TestKill\w+) \(`)
)

// runChild re-executes this test binary with TW_MUTANT=name and only the
// given killers.
func runChild(name string, ks []string) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), 190*time.Second)
	defer cancel()
	args := append([]string{"-test.run=^(" + strings.Join(ks, "|") + ")$"}, childArgs()...)
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TW_MUTANT="+name)
	begin := time.Now()
	out, err := cmd.CombinedOutput()
	o := outcome{mutant: name, killers: ks, elapsed: time.Since(begin), output: string(out), err: err}
	for _, m := range failRE.FindAllStringSubmatch(o.output, -1) {
		if !slices.Contains(o.failed, m[1]) {
			o.failed = append(o.failed, m[1])
		}
	}
	o.hung = ctx.Err() != nil || strings.Contains(o.output, "panic: test timed out")
	if o.hung {
		// A killer that never returns caught the mutant too (an endless
		// loop): the timeout lists the tests still running.
		if i := strings.Index(o.output, "running tests:"); i >= 0 {
			for _, m := range runningRE.FindAllStringSubmatch(o.output[i:], -1) {
				if !slices.Contains(o.failed, m[1]) {
					o.failed = append(o.failed, m[1])
				}
			}
		}
	}
	return o
}

// runAll runs the jobs, GOMAXPROCS at a time.
func runAll(jobs []outcome) []outcome {
	res := make([]outcome, len(jobs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	for i, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			res[i] = runChild(j.mutant, j.killers)
		}()
	}
	wg.Wait()
	return res
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestMutantsKilled switches on each mutant in turn (a child process of this
// test binary with TW_MUTANT set) and expects its planned killers to fail;
// with no mutant (TW_MUTANT=none) every killer must pass. Run it with
//
//	go test -tags twmutants -run TestMutantsKilled ./internal/mutant
//
// TW_MUTATION_MATRIX=1 runs every killer against every mutant instead and
// logs the whole matrix (minutes; for docs/invariants.md).
func TestMutantsKilled(t *testing.T) {
	if os.Getenv("TW_MUTANT") != "" {
		t.Skip("inside a mutant child")
	}
	for _, m := range mutant.All {
		if len(plan[m]) == 0 {
			t.Errorf("mutant %s has no planned killer", m)
		}
	}
	if len(plan) != len(mutant.All) {
		t.Errorf("plan has %d mutants, mutant.All %d", len(plan), len(mutant.All))
	}
	if os.Getenv("TW_MUTATION_MATRIX") != "" {
		matrix(t)
		return
	}
	jobs := []outcome{{mutant: "none", killers: killers}}
	for _, m := range mutant.All {
		jobs = append(jobs, outcome{mutant: m, killers: plan[m]})
	}
	begin := time.Now()
	res := runAll(jobs)
	base := res[0]
	if base.err != nil || len(base.failed) > 0 {
		t.Fatalf("without a mutant the killers must pass; failed %v (%v):\n%s", base.failed, base.err, tail(base.output, 40))
	}
	t.Logf("no mutant: all %d killers pass (%v)", len(killers), base.elapsed.Round(10*time.Millisecond))
	killed := 0
	for _, o := range res[1:] {
		var missed []string
		for _, k := range o.killers {
			if !slices.Contains(o.failed, k) {
				missed = append(missed, k)
			}
		}
		switch {
		case o.hung && !mayHang[o.mutant]:
			t.Errorf("mutant %s: the child ran out of time after %v; a timeout is not a kill for a mutant not known to loop:\n%s",
				o.mutant, o.elapsed.Round(time.Second), tail(o.output, 30))
		case len(o.failed) > 0 && len(missed) > 0:
			killed++
			t.Errorf("mutant %s killed by %v, but the planned %v let it pass", o.mutant, o.failed, missed)
		case len(o.failed) > 0:
			killed++
			how := ""
			if o.hung {
				how = " (by a timeout)"
			}
			t.Logf("%-22s killed by %s%s in %v", o.mutant, strings.Join(o.failed, ", "), how, o.elapsed.Round(10*time.Millisecond))
		case o.err != nil:
			// The child failed without a killer failing: a crash before the
			// tests ran. That is not a kill by the planned check.
			t.Errorf("mutant %s: the child failed (%v) but no killer reported a failure:\n%s", o.mutant, o.err, tail(o.output, 30))
		default:
			t.Errorf("mutant %s SURVIVED %v", o.mutant, o.killers)
		}
	}
	t.Logf("kill rate %d/%d (%.0f%%) in %v", killed, len(res)-1, 100*float64(killed)/float64(len(res)-1),
		time.Since(begin).Round(100*time.Millisecond))
}

// matrix runs each killer alone against each mutant and logs a table.
func matrix(t *testing.T) {
	var jobs []outcome
	for _, m := range append([]string{"none"}, mutant.All...) {
		for _, k := range killers {
			jobs = append(jobs, outcome{mutant: m, killers: []string{k}})
		}
	}
	res := runAll(jobs)
	var b strings.Builder
	fmt.Fprintf(&b, "\n| mutant | %s |\n|---|%s\n", strings.Join(killers, " | "), strings.Repeat("---|", len(killers)))
	killed := map[string]bool{}
	for i := 0; i < len(res); i += len(killers) {
		m := res[i].mutant
		fmt.Fprintf(&b, "| %s |", m)
		for _, o := range res[i : i+len(killers)] {
			cell := "survives"
			switch {
			case len(o.failed) > 0 && o.hung:
				cell = "hangs"
			case len(o.failed) > 0:
				cell = "KILLS"
			case o.err != nil:
				cell = "crash"
			}
			if m == "none" {
				cell = map[bool]string{true: "passes", false: "FAILS"}[len(o.failed) == 0 && o.err == nil]
			}
			if len(o.failed) > 0 && m != "none" {
				killed[m] = true
			}
			fmt.Fprintf(&b, " %s %.1fs |", cell, o.elapsed.Seconds())
		}
		b.WriteString("\n")
	}
	t.Log(b.String())
	t.Logf("killed by at least one killer: %d/%d", len(killed), len(mutant.All))
	for _, o := range res {
		if o.mutant == "none" && (len(o.failed) > 0 || o.err != nil) {
			t.Errorf("%s fails without a mutant:\n%s", o.killers[0], tail(o.output, 30))
		}
	}
}
