package proptest

import (
	"os"
	"testing"
)

// Run replays the trace on a new wheel (timingwheel.New[int], or
// WithWheelFactory's) and a Model, comparing them after every call exactly as
// CheckWheel does, and returns the first difference, or nil.
func (tr WheelTrace) Run(opts ...Option) error {
	return runWheelTrace(tr, buildOptions(opts).wheelFactory)
}

// Run replays the trace on a new queue (priorityqueue.New[int], or
// WithQueueFactory's) and a QueueModel, comparing them after every call
// exactly as CheckQueue does, and returns the first difference, or nil.
func (tr QueueTrace) Run(opts ...Option) error {
	return runQueueTrace(tr, buildOptions(opts).queueFactory)
}

// ReplayWheel reads a wheel trace file (the text form of WheelTrace, as
// WithFailureFile writes it) and replays it, failing t at the first
// difference between the wheel and the model. Keep such files under testdata/
// as regression tests.
func ReplayWheel(t testing.TB, path string, opts ...Option) {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("proptest: %v", err)
	}
	replayWheel(t, path, string(text), opts)
}

// ReplayWheelText replays a wheel trace given as text, as the snippet a
// failing CheckWheel prints does.
func ReplayWheelText(t testing.TB, text string, opts ...Option) {
	t.Helper()
	replayWheel(t, "trace", text, opts)
}

func replayWheel(t testing.TB, name, text string, opts []Option) {
	t.Helper()
	tr, err := ParseWheelTrace(text)
	if err != nil {
		t.Fatalf("proptest: %s: %v", name, err)
	}
	if err := tr.Run(opts...); err != nil {
		t.Fatalf("proptest: %s: the wheel differs from the model: %v", name, err)
	}
}

// ReplayQueue reads a queue trace file (the text form of QueueTrace) and
// replays it, failing t at the first difference between the queue and the
// model.
func ReplayQueue(t testing.TB, path string, opts ...Option) {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("proptest: %v", err)
	}
	replayQueue(t, path, string(text), opts)
}

// ReplayQueueText replays a queue trace given as text.
func ReplayQueueText(t testing.TB, text string, opts ...Option) {
	t.Helper()
	replayQueue(t, "trace", text, opts)
}

func replayQueue(t testing.TB, name, text string, opts []Option) {
	t.Helper()
	tr, err := ParseQueueTrace(text)
	if err != nil {
		t.Fatalf("proptest: %s: %v", name, err)
	}
	if err := tr.Run(opts...); err != nil {
		t.Fatalf("proptest: %s: the queue differs from the model: %v", name, err)
	}
}
