package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestMain lets -isolate run in tests: its child processes are this test
// binary, which runs twsim's main instead of the tests when the test that
// starts them sets TWSIM_TEST_RUN_MAIN.
func TestMain(m *testing.M) {
	if os.Getenv("TWSIM_TEST_RUN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestParseFlags(t *testing.T) {
	o, err := parseFlags(nil, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.workloads) != len(allWorkloads) || o.impl != "wheel" || !o.compare || o.reps != 1 ||
		len(o.sizes) != 2 || o.sizes[0] != 1000 || o.sizes[1] != 100000 || o.memN != 1_000_000 {
		t.Fatalf("defaults: %+v", o)
	}
	// The default run covers every result line of docs/workloads.md.
	var kinds []string
	for _, j := range jobs(o) {
		kinds = append(kinds, j.kind)
	}
	want := "hold hold hold-exact hold-exact timeout timeout-1m sparse sparse-p10 sparse-packed mem clock-new clock-step" +
		" mm1 mm1-p19 mm10 mm10-p19 rpc rpc-p19"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("default jobs %q, want %q", got, want)
	}
	// The clock workloads run at a quick size within all, at four sizes when
	// named, and at the -n sizes when given.
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "clock-new:1000 clock-step:1000"},
		{[]string{"-workload", "clock-new,clock-step"},
			"clock-new:100 clock-new:1000 clock-new:10000 clock-new:100000 clock-step:100 clock-step:1000 clock-step:10000 clock-step:100000"},
		{[]string{"-workload", "hold,clock-new"}, "clock-new:100 clock-new:1000 clock-new:10000 clock-new:100000"},
		{[]string{"-workload", "clock-step,hold", "-n", "5,7"}, "clock-step:5 clock-step:7"},
	} {
		o, err := parseFlags(c.args, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, j := range jobs(o) {
			if j.isClock() {
				got = append(got, fmt.Sprintf("%s:%d", j.kind, j.n))
			}
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("parseFlags(%q): clock jobs %q, want %q", c.args, got, c.want)
		}
	}

	o, err = parseFlags([]string{"-workload", "hold-exact,MEM", "-n", "1e3,2_000", "-impl", "heap2"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.workloads, ",") != "hold-exact,mem" || o.sizes[0] != 1000 || o.sizes[1] != 2000 ||
		o.memN != 2000 || o.impl != "heap2" {
		t.Fatalf("parsed %+v", o)
	}
	// A profile turns the comparison off unless asked for; heap4 never compares with itself.
	if o, _ = parseFlags([]string{"-cpuprofile", "x"}, &bytes.Buffer{}); o.compare {
		t.Fatal("-cpuprofile left -compare on")
	}
	if o, _ = parseFlags([]string{"-cpuprofile", "x", "-compare"}, &bytes.Buffer{}); !o.compare {
		t.Fatal("explicit -compare ignored")
	}
	if o, _ = parseFlags([]string{"-impl", "heap4"}, &bytes.Buffer{}); o.compare {
		t.Fatal("heap4 compared with itself")
	}

	for _, bad := range [][]string{
		{"-workload", "nope"}, {"-impl", "skiplist"}, {"-n", "0"}, {"-n", "1.5"}, {"-n", "x"},
		{"-reps", "0"}, {"extra"}, {"-nosuchflag"}, {"-isolate", "-cpuprofile", "x"},
	} {
		if _, err := parseFlags(bad, &bytes.Buffer{}); err == nil {
			t.Errorf("parseFlags(%q) accepted", bad)
		}
	}
}

func TestRenderBar(t *testing.T) {
	for _, c := range []struct {
		done, total int
		want        string
	}{
		{0, 10, "\r[..............................] HOLD           0%"},
		{5, 10, "\r[###############...............] HOLD          50%"},
		{10, 10, "\r[##############################] HOLD         100%"},
		{20, 10, "\r[##############################] HOLD         100%"},
	} {
		if got := renderBar("HOLD", c.done, c.total); got != c.want {
			t.Errorf("renderBar(%d, %d) = %q, want %q", c.done, c.total, got, c.want)
		}
	}
}

// A small run prints the result lines in the format of docs/workloads.md, the "#"
// lines, and the table, and the wheel agrees with heap4 (run checks that).
func TestRunSmall(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run([]string{"-workload", "sparse,mem", "-n", "2000", "-check", "-reps", "2"}, &out, &errOut); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	s := out.String()
	for _, re := range []string{
		`(?m)^SPARSE 10000 [0-9]+\.[0-9] [0-9]+$`,
		`(?m)^SPARSE_P10 10000 [0-9]+\.[0-9] [0-9]+$`,
		`(?m)^# SPARSE N=10000 fill_ns=[0-9]+ drain_ns=[0-9]+ advance_steps=10000 reps=21 \(median\)$`,
		`(?m)^# SPARSE_PACKED 10000 `,
		`(?m)^MEM 2000 [0-9]+\.[0-9] [0-9]+$`,
		`(?m)^# MEM N=2000 bytes_per_alarm=[0-9.]+ without_empty_wheel=[0-9.]+ empty_wheel_bytes=-?[0-9]+ live=2000 copies=50$`,
		`(?m)^# heap4: SPARSE 10000 `,
		`(?m)^\s+workload\s+N\s+wheel ns/op\s+allocs/op\s+bytes/alarm\s+peak RSS MiB\s+checksum\s+heap4 ns/op\s+ratio$`,
		`(?m)^\s+SPARSE\s+10000\s`,
	} {
		if !regexp.MustCompile(re).MatchString(s) {
			t.Errorf("output lacks %s:\n%s", re, s)
		}
	}
	// SPARSE and SPARSE_P10 fire the same 10,000 alarms: the same checksum.
	cs := regexp.MustCompile(`(?m)^SPARSE(?:_P10)? 10000 \S+ ([0-9]+)$`).FindAllStringSubmatch(s, -1)
	if len(cs) != 2 || cs[0][1] != cs[1][1] {
		t.Errorf("SPARSE checksums %v", cs)
	}
	if errOut.Len() != 0 {
		t.Errorf("stderr is not a terminal, yet got %q", errOut.String())
	}
}

// The clock workloads print their result lines, the heap clock's as a
// comment, and rows named CLOCK-NEW and CLOCK-STEP with N second and the
// ratio last; simclock and the heap clock agree (run checks that), and with
// -check every callback checks its time and its order.
func TestRunClock(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run([]string{"-workload", "clock-new,clock-step", "-n", "300", "-check"}, &out, &errOut); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	s := out.String()
	for _, re := range []string{
		`(?m)^CLOCK-NEW 300 [0-9]+\.[0-9] [0-9]+$`,
		`(?m)^# CLOCK-NEW N=300 fired=300 now_end_ns=1000000000 reps=11 clocks_per_rep=666 \(median\) `,
		`(?m)^# heapclock: CLOCK-NEW 300 `,
		`(?m)^CLOCK-STEP 300 [0-9]+\.[0-9] [0-9]+$`,
		`(?m)^# CLOCK-STEP N=300 warm_steps=300 steps=100000 fired=[0-9]+ timed_fired=[0-9]+ now_end_ns=[0-9]+$`,
		`(?m)^# heapclock: CLOCK-STEP 300 `,
		`(?m)^# heapclock: CLOCK-STEP N=300 bytes_per_alarm=[0-9.]+ allocs_per_op=[0-9.]+$`,
		`(?m)^\s+CLOCK-NEW\s+300\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+\S+\s+[0-9]+\s+[0-9.]+\s+[0-9.]+$`,
		`(?m)^\s+CLOCK-STEP\s+300\s`,
		`(?m)^# CLOCK-NEW, CLOCK-STEP: simclock in the wheel column`,
	} {
		if !regexp.MustCompile(re).MatchString(s) {
			t.Errorf("output lacks %s:\n%s", re, s)
		}
	}
}

// The simulation workloads print their result lines, simclock's and the
// event heap's as comments, and two rows per model and precision, the
// wheel's and simclock's; the three engines agree (run checks that), at 1 ns
// and at 2^19 ns alike (the same checksum), and with -check every event
// runs at its own time, in order.
func TestRunSim(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates about 3.5 million events on each of three engines")
	}
	var out, errOut bytes.Buffer
	if err := run([]string{"-workload", "mm1,rpc", "-check"}, &out, &errOut); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	s := out.String()
	for _, re := range []string{
		`(?m)^MM1 1 [0-9]+\.[0-9] [0-9]+$`,
		`(?m)^# MM1 N=1 events=[0-9]+ timed_events=[0-9]+ arrivals=[0-9]+ started=[0-9]+ served=[0-9]+ wait_ns=[0-9]+ sojourn_ns=[0-9]+ area_ns=[0-9]+ last_ns=[0-9]+ max_queue=[0-9]+ pending_end=[12]$`,
		`(?m)^# MM1 N=1 mean_wait_s=[0-9.]+ \(theory 9\.000\) mean_in_system=[0-9.]+ \(theory 9\.000\)$`,
		`(?m)^# simclock: MM1 1 [0-9]+\.[0-9] [0-9]+$`,
		`(?m)^# eventheap: MM1 1 [0-9]+\.[0-9] [0-9]+$`,
		`(?m)^# eventheap: MM1 N=1 bytes_per_alarm=[0-9.]+ allocs_per_op=1\.0000$`,
		`(?m)^MM1_P19 1 `,
		`(?m)^RPC 20000 [0-9]+\.[0-9] [0-9]+$`,
		`(?m)^# RPC N=20000 events=[0-9]+ timed_events=[0-9]+ requests=[0-9]+ replies=[0-9]+ timeouts=[0-9]+ latency_ns=[0-9]+ settled=[0-9]+ settled_timeouts=[0-9]+ pending_end=40000$`,
		`(?m)^# RPC N=20000 timeout_fraction=0\.0[12][0-9]+ \(theory 0\.01999\)$`,
		`(?m)^RPC_P19 20000 `,
		`(?m)^\s+MM1\s+1\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+\S+\s+[0-9]+\s+[0-9.]+\s+[0-9.]+$`,
		`(?m)^\s+MM1 simclock\s+1\s`,
		`(?m)^\s+MM1_P19 simclock\s+1\s`,
		`(?m)^\s+RPC simclock\s+20000\s`,
		`(?m)^# MM1, MM10, RPC: the wheel's Step loop in the wheel column`,
	} {
		if !regexp.MustCompile(re).MatchString(s) {
			t.Errorf("output lacks %s:\n%s", re, s)
		}
	}
	for _, m := range []string{"MM1", "RPC"} {
		cs := regexp.MustCompile(`(?m)^`+m+`(?:_P19)? [0-9]+ \S+ ([0-9]+)$`).FindAllStringSubmatch(s, -1)
		if len(cs) != 2 || cs[0][1] != cs[1][1] {
			t.Errorf("%s checksums at 1 ns and 2^19 ns: %v", m, cs)
		}
	}
}

// -isolate runs every repetition of each implementation in a child process
// and reports each one's peak RSS; the results are those of a run in
// process (the checksums do not depend on where they run).
func TestRunIsolate(t *testing.T) {
	t.Setenv("TWSIM_TEST_RUN_MAIN", "1")
	var in, iso, errOut bytes.Buffer
	args := []string{"-workload", "mem,clock-new", "-n", "20000"}
	if err := run(args, &in, &errOut); err != nil {
		t.Fatalf("run: %v\n%s", err, in.String())
	}
	if err := run(append(args, "-isolate", "-reps", "2"), &iso, &errOut); err != nil {
		t.Fatalf("run -isolate: %v\n%s%s", err, iso.String(), errOut.String())
	}
	lines := regexp.MustCompile(`(?m)^(MEM|CLOCK-NEW) 20000 \S+ ([0-9]+)$`)
	a, b := lines.FindAllStringSubmatch(in.String(), -1), lines.FindAllStringSubmatch(iso.String(), -1)
	if len(a) != 2 || len(b) != 2 || a[0][2] != b[0][2] || a[1][2] != b[1][2] {
		t.Fatalf("result lines in process %q, isolated %q", a, b)
	}
	head := regexp.MustCompile(`(?m)^\s+workload\s+N\s+wheel ns/op\s+allocs/op\s+bytes/alarm\s+peak RSS MiB\s+checksum\s+heap4 ns/op\s+heap4 RSS MiB\s+ratio$`)
	if !head.MatchString(iso.String()) {
		t.Fatalf("no heap4 RSS column:\n%s", iso.String())
	}
	if _, ok := peakRSS(); !ok {
		return // no RSS figures on this system
	}
	// A child holding 20000 alarms stays within a few tens of MiB.
	m := regexp.MustCompile(`(?m)^\s+MEM\s+20000\s+-\s+-\s+\S+\s+([0-9.]+)\s+[0-9]+\s+\S+ B\s+([0-9.]+)\s`).FindStringSubmatch(iso.String())
	if m == nil {
		t.Fatalf("no MEM row with two RSS figures:\n%s", iso.String())
	}
	for _, f := range m[1:] {
		if v, err := strconv.ParseFloat(f, 64); err != nil || v <= 0 || v > 256 {
			t.Errorf("peak RSS %q MiB of a child holding 20000 alarms", f)
		}
	}
}

// -prealloc gives HOLD's wheel and heap4 their capacity up front; the runs
// fire the same alarms (the same checksums), in process and in the child
// processes of -isolate, which must accept the flag.
func TestRunPrealloc(t *testing.T) {
	t.Setenv("TWSIM_TEST_RUN_MAIN", "1")
	lines := regexp.MustCompile(`(?m)^(HOLD|HOLD-EXACT) 3000 \S+ ([0-9]+)$`)
	var want [][]string
	for _, extra := range [][]string{nil, {"-prealloc"}, {"-prealloc", "-isolate"}} {
		var out, errOut bytes.Buffer
		args := append([]string{"-workload", "hold,hold-exact", "-n", "3000"}, extra...)
		if err := run(args, &out, &errOut); err != nil {
			t.Fatalf("run %v: %v\n%s%s", args, err, out.String(), errOut.String())
		}
		got := lines.FindAllStringSubmatch(out.String(), -1)
		if len(got) != 2 {
			t.Fatalf("run %v: result lines %q", args, got)
		}
		if want == nil {
			want = got
		} else if got[0][2] != want[0][2] || got[1][2] != want[1][2] {
			t.Fatalf("run %v: checksums %q, without -prealloc %q", args, got, want)
		}
	}
}

// bench/scripts/ratios.sh, which the interleaved comparisons in
// docs/performance.md use, reads every row of twsim's table that has a
// ratio, the simulation models' simclock rows included.
func TestRatiosScript(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to run the script")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sh, "../../bench/scripts/ratios.sh", "2", exe, "--", "-workload", "mm1,clock-step", "-n", "100")
	cmd.Env = append(os.Environ(), "TWSIM_TEST_RUN_MAIN=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("ratios.sh: %v\n%s", err, out)
	}
	for _, row := range []string{"MM1", "MM1/simclock", "MM1_P19", "MM1_P19/simclock", "CLOCK-STEP"} {
		re := regexp.MustCompile(`(?m)^\S+\s+` + regexp.QuoteMeta(row) + `\s+[0-9]+\s+ratio [0-9.]+ \([0-9.]+-[0-9.]+\)\s+ns/op [0-9.]+, baseline [0-9.]+\s+runs 2$`)
		if !re.Match(out) {
			t.Errorf("no line for %s with a ratio over 2 runs:\n%s", row, out)
		}
	}
}
