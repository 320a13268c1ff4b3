// Package mutant_test is the mutation runner: it shows that the checks this
// repository ships catch known bugs. The bugs (mutants) are listed in
// testdata/mutants.txt, each as a change of one production file; the runner
// applies one at a time from outside the code, with go test -overlay, and
// expects the mutant's killers to fail. The production code carries no hook.
//
//	TW_MUTATION=1 go test -run TestMutantsKilled -count=1 ./internal/mutant
//
// To add a mutant, add an entry to testdata/mutants.txt (the original lines,
// the changed lines, and the tests that must fail), run TestPlan, then the
// runner; docs/invariants.md lists the mutants and what kills each.
package mutant_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// localKillers are the killers of this package (killers_test.go), in the
// order of the matrix's columns; killers of other packages follow them in the
// order the plan names them.
var localKillers = []string{"TestKillInvariantOnly", "TestKillExhaustive", "TestKillEqualTimes",
	"TestKillOverflowReach", "TestKillCheckWheelTiny", "TestKillCheckWheel", "TestKillCheckQueue"}

// childArgs bound the tests in a child: a timeout, and for a package whose
// tests use rapid, rapid's checks and seed (fixed, so that a run is
// repeatable; TW_MUTATION_SEED changes it) and a short shrink (a kill needs
// one failure, not the smallest).
func childArgs(rapid bool) []string {
	args := []string{"-test.count=1", "-test.v", "-test.timeout=180s"}
	if rapid {
		seed := os.Getenv("TW_MUTATION_SEED")
		if seed == "" {
			seed = "1"
		}
		args = append(args, "-rapid.checks=100", "-rapid.seed="+seed, "-rapid.nofailfile", "-rapid.shrinktime=1s")
	}
	return args
}

// A job builds the test binary of one package with one mutant applied (none:
// unpatched) and runs it once per group of tests.
type job struct {
	m      *mutation // nil: no mutant
	pkg    string
	groups [][]string
}

func (j job) mutant() string {
	if j.m == nil {
		return "none"
	}
	return j.m.name
}

// An outcome is one run of a test binary.
type outcome struct {
	mutant   string
	pkg      string
	tests    []string
	failed   []string // tests that failed, or were still running at a timeout
	hung     bool     // the child ran out of time
	build    time.Duration
	elapsed  time.Duration
	output   string
	err      error // the child's
	buildErr error // building the binary's (then nothing ran)
}

var (
	failRE    = regexp.MustCompile(`(?m)^\s*--- FAIL: (Test\w+)`)
	runningRE = regexp.MustCompile(`(?m)^\s+(Test\w+) \(`)
)

// A runner holds what the jobs share.
type runner struct {
	goCmd    string
	root     string            // the module root: the go command's directory
	dir      string            // a temporary directory for copies and binaries
	overlays map[string]string // mutant name -> overlay file
	rapid    map[string]bool   // package -> its tests use rapid
}

func newRunner(t *testing.T, plan []*mutation) *runner {
	goCmd, err := exec.LookPath("go") // go test puts its own go first on PATH
	if err != nil {
		t.Fatalf("the runner needs the go command: %v", err)
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{goCmd: goCmd, root: root, dir: t.TempDir(), overlays: map[string]string{}, rapid: map[string]bool{}}
	if errs := check(root, plan); len(errs) > 0 {
		for _, err := range errs {
			t.Error(err)
		}
		t.Fatalf("the plan (%s) does not fit the code; no mutant was run", planFile)
	}
	for _, m := range plan {
		path, err := m.writeOverlay(root, filepath.Join(r.dir, m.name))
		if err != nil {
			t.Fatal(err)
		}
		r.overlays[m.name] = path
	}
	for _, pkg := range killerPackages(plan) {
		cmd := exec.Command(goCmd, "list", "-test", "-deps", "-f", "{{.ImportPath}}", pkg)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		r.rapid[pkg] = slices.Contains(strings.Fields(string(out)), "pgregory.net/rapid")
	}
	return r
}

// killerPackages returns this package and every package a killer of the plan
// lives in, this package first.
func killerPackages(plan []*mutation) []string {
	pkgs := []string{here}
	for _, m := range plan {
		for _, k := range m.killers {
			if !slices.Contains(pkgs, k.pkg) {
				pkgs = append(pkgs, k.pkg)
			}
		}
	}
	return pkgs
}

// allKillers returns every killer, in the order of the matrix's columns.
func allKillers(plan []*mutation) []killer {
	var ks []killer
	for _, name := range localKillers {
		ks = append(ks, killer{here, name})
	}
	for _, m := range plan {
		for _, k := range m.killers {
			if !slices.Contains(ks, k) {
				ks = append(ks, k)
			}
		}
	}
	return ks
}

// run builds j's binary and runs each of its groups.
func (r *runner) run(j job) []outcome {
	bin := filepath.Join(r.dir, j.mutant(), strings.ReplaceAll(strings.TrimPrefix(j.pkg, "./"), "/", "_")+".test")
	args := []string{"test", "-c", "-vet=off", "-o", bin}
	if j.m != nil {
		args = append(args, "-overlay="+r.overlays[j.m.name])
	}
	cmd := exec.Command(r.goCmd, append(args, j.pkg)...)
	cmd.Dir = r.root
	begin := time.Now()
	out, err := cmd.CombinedOutput()
	build := time.Since(begin)
	var res []outcome
	for _, tests := range j.groups {
		o := outcome{mutant: j.mutant(), pkg: j.pkg, tests: tests, build: build}
		if err != nil {
			o.buildErr = fmt.Errorf("go %s: %v\n%s", strings.Join(cmd.Args[1:], " "), err, out)
		} else {
			r.runChild(bin, &o)
		}
		res = append(res, o)
	}
	os.Remove(bin)
	return res
}

// runChild runs o's tests in bin, in the package's directory as go test
// would, with TW_MUTANT naming the mutant (the killers of this package run
// only when it is set).
func (r *runner) runChild(bin string, o *outcome) {
	ctx, cancel := context.WithTimeout(context.Background(), 190*time.Second)
	defer cancel()
	args := append([]string{"-test.run=^(" + strings.Join(o.tests, "|") + ")$"}, childArgs(r.rapid[o.pkg])...)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = filepath.Join(r.root, filepath.FromSlash(o.pkg))
	cmd.Env = append(os.Environ(), "TW_MUTANT="+o.mutant)
	begin := time.Now()
	out, err := cmd.CombinedOutput()
	o.elapsed, o.output, o.err = time.Since(begin), string(out), err
	note := func(name string) {
		if slices.Contains(o.tests, name) && !slices.Contains(o.failed, name) {
			o.failed = append(o.failed, name)
		}
	}
	for _, m := range failRE.FindAllStringSubmatch(o.output, -1) {
		note(m[1])
	}
	o.hung = ctx.Err() != nil || strings.Contains(o.output, "panic: test timed out")
	if o.hung {
		// A killer that never returns caught the mutant too (an endless
		// loop): the timeout lists the tests still running.
		if i := strings.Index(o.output, "running tests:"); i >= 0 {
			for _, m := range runningRE.FindAllStringSubmatch(o.output[i:], -1) {
				note(m[1])
			}
		}
	}
}

// runAll runs the jobs, GOMAXPROCS at a time, and returns their outcomes in
// the jobs' order.
func (r *runner) runAll(jobs []job) []outcome {
	res := make([][]outcome, len(jobs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	for i, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			res[i] = r.run(j)
		}()
	}
	wg.Wait()
	return slices.Concat(res...)
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestMutantsKilled applies each mutant in turn (go test -c -overlay, one
// binary per mutant and killer package) and expects every one of its killers
// to fail; without a mutant, every killer of every killer package must pass.
// It runs only when asked, as it takes minutes:
//
//	TW_MUTATION=1 go test -run TestMutantsKilled -count=1 ./internal/mutant
//
// TW_MUTATION_MATRIX=1 runs every killer alone against every mutant instead
// and logs the whole matrix (for docs/invariants.md).
func TestMutantsKilled(t *testing.T) {
	if os.Getenv("TW_MUTANT") != "" {
		t.Skip("inside a mutant child")
	}
	matrixMode := os.Getenv("TW_MUTATION_MATRIX") != ""
	if os.Getenv("TW_MUTATION") == "" && !matrixMode {
		t.Skip("the mutation runner takes minutes: run it with TW_MUTATION=1 (CI does)")
	}
	plan, err := loadPlan()
	if err != nil {
		t.Fatal(err)
	}
	r := newRunner(t, plan)
	begin := time.Now()
	if matrixMode {
		matrix(t, r, plan)
		return
	}
	// Without a mutant: every killer of each package, in one run.
	var jobs []job
	for _, pkg := range killerPackages(plan) {
		var tests []string
		for _, k := range allKillers(plan) {
			if k.pkg == pkg {
				tests = append(tests, k.test)
			}
		}
		jobs = append(jobs, job{pkg: pkg, groups: [][]string{tests}})
	}
	base := len(jobs)
	for _, m := range plan {
		for _, pkg := range killerPackages([]*mutation{m}) {
			var tests []string
			for _, k := range m.killers {
				if k.pkg == pkg {
					tests = append(tests, k.test)
				}
			}
			if len(tests) > 0 {
				jobs = append(jobs, job{m: m, pkg: pkg, groups: [][]string{tests}})
			}
		}
	}
	res := r.runAll(jobs)
	for _, o := range res[:base] {
		if o.buildErr != nil || o.err != nil || len(o.failed) > 0 {
			t.Fatalf("without a mutant every killer must pass; in %s %v failed (%v %v):\n%s",
				o.pkg, o.failed, o.buildErr, o.err, tail(o.output, 40))
		}
		t.Logf("no mutant: %s passes %s (%v)", o.pkg, strings.Join(o.tests, ", "), o.elapsed.Round(10*time.Millisecond))
	}
	byMutant := map[string][]outcome{}
	for _, o := range res[base:] {
		byMutant[o.mutant] = append(byMutant[o.mutant], o)
	}
	killed := 0
	for _, m := range plan {
		if judge(t, m, byMutant[m.name]) {
			killed++
		}
	}
	t.Logf("kill rate %d/%d (%.0f%%) in %v", killed, len(plan), 100*float64(killed)/float64(len(plan)),
		time.Since(begin).Round(100*time.Millisecond))
}

// judge reports how m fared in its outcomes and whether a killer caught it.
// A timeout is a kill only for a mutant known to hang; a child that crashed
// with no killer failing is no kill.
func judge(t *testing.T, m *mutation, outs []outcome) bool {
	var failed, missed []string
	var hung, crashed bool
	var build, elapsed time.Duration
	var output strings.Builder
	for _, o := range outs {
		if o.buildErr != nil {
			t.Errorf("mutant %s does not build in %s: %v", m.name, o.pkg, o.buildErr)
			return false
		}
		for _, name := range o.tests {
			k := killer{o.pkg, name}.String()
			if slices.Contains(o.failed, name) {
				failed = append(failed, k)
			} else {
				missed = append(missed, k)
			}
		}
		hung = hung || o.hung
		crashed = crashed || o.err != nil && len(o.failed) == 0
		build, elapsed = build+o.build, elapsed+o.elapsed
		output.WriteString(tail(o.output, 30) + "\n")
	}
	switch {
	case hung && !m.mayHang:
		t.Errorf("mutant %s: a child ran out of time; a timeout is not a kill for a mutant not known to loop:\n%s",
			m.name, output.String())
		return false
	case len(failed) > 0 && len(missed) > 0:
		t.Errorf("mutant %s killed by %v, but the planned %v let it pass", m.name, failed, missed)
		return true
	case len(failed) > 0:
		how := ""
		if hung {
			how = " (by a timeout)"
		}
		t.Logf("%-22s killed by %s%s in %v (build %v)", m.name, strings.Join(failed, ", "), how,
			elapsed.Round(10*time.Millisecond), build.Round(10*time.Millisecond))
		return true
	case crashed:
		// A child failed without a killer failing: a crash before the
		// tests ran. That is not a kill by the planned check.
		t.Errorf("mutant %s: a child failed but no killer reported a failure:\n%s", m.name, output.String())
		return false
	default:
		t.Errorf("mutant %s SURVIVED %v", m.name, missed)
		return false
	}
}

// matrix runs each killer alone against each mutant and logs a table.
func matrix(t *testing.T, r *runner, plan []*mutation) {
	killers := allKillers(plan)
	var jobs []job
	for _, m := range append([]*mutation{nil}, plan...) {
		for _, pkg := range killerPackages(plan) {
			j := job{m: m, pkg: pkg}
			for _, k := range killers {
				if k.pkg == pkg {
					j.groups = append(j.groups, []string{k.test})
				}
			}
			jobs = append(jobs, j)
		}
	}
	cells := map[[2]string]outcome{} // mutant, killer
	for _, o := range r.runAll(jobs) {
		cells[[2]string{o.mutant, killer{o.pkg, o.tests[0]}.String()}] = o
	}
	var b strings.Builder
	var names []string
	for _, k := range killers {
		names = append(names, k.String())
	}
	fmt.Fprintf(&b, "\n| mutant | %s |\n|---|%s\n", strings.Join(names, " | "), strings.Repeat("---|", len(names)))
	killed := 0
	for _, m := range append([]*mutation{nil}, plan...) {
		name := "none"
		if m != nil {
			name = m.name
		}
		fmt.Fprintf(&b, "| %s |", name)
		caught := false
		for _, k := range names {
			o := cells[[2]string{name, k}]
			cell := "survives"
			switch {
			case o.buildErr != nil:
				cell = "no build"
			case len(o.failed) > 0 && o.hung:
				cell = "hangs"
			case len(o.failed) > 0:
				cell = "KILLS"
			case o.err != nil:
				cell = "crash"
			}
			if m == nil {
				cell = map[bool]string{true: "passes", false: "FAILS"}[len(o.failed) == 0 && o.err == nil && o.buildErr == nil]
				if cell == "FAILS" {
					t.Errorf("%s fails without a mutant: %v\n%s", k, o.buildErr, tail(o.output, 30))
				}
			} else if len(o.failed) > 0 {
				caught = true
			}
			fmt.Fprintf(&b, " %s %.1fs |", cell, o.elapsed.Seconds())
		}
		if caught {
			killed++
		}
		b.WriteString("\n")
	}
	t.Log(b.String())
	t.Logf("killed by at least one killer: %d/%d", killed, len(plan))
}
