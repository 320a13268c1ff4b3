package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

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
	want := "hold hold hold-exact hold-exact timeout timeout-1m sparse sparse-p10 sparse-packed mem"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("default jobs %q, want %q", got, want)
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
		{"-reps", "0"}, {"extra"}, {"-nosuchflag"},
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
		`(?m)^# MEM N=2000 bytes_per_alarm=`,
		`(?m)^# heap4: SPARSE 10000 `,
		`(?m)^\s+workload\s+N\s+wheel ns/op\s+allocs/op\s+bytes/alarm\s+checksum\s+heap4 ns/op\s+ratio$`,
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
