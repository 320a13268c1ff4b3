package workload

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/cmd/twsim/heaps"
	"github.com/gotimingwheel/timingwheel/simclock"
)

// The engines twsim measures besides the wheel's, as it makes them.
func simclockSim(precision time.Duration, codes int, run func(int64, int32)) Sim[simclock.Timer] {
	return ClockSim(simclock.New(ClockEpoch, simclock.WithPrecision(precision)), codes, run)
}
func heapSim(_ time.Duration, _ int, run func(int64, int32)) Sim[*heaps.Event] {
	return heaps.NewEventHeap(run)
}

// listSim is a reference engine for the tests: a plain list of pending
// events searched for the least (time, scheduling number) at every step,
// which is the order the engines promise, with nothing clever to get wrong.
type listSim struct {
	pend []*listEvent
	seq  uint64
	now  int64
	run  func(int64, int32)
}

type listEvent struct {
	at, seq int64
	code    int32
	gone    bool
}

func newListSim(_ time.Duration, _ int, run func(int64, int32)) Sim[*listEvent] {
	return &listSim{run: run}
}

func (s *listSim) Schedule(d int64, code int32) *listEvent {
	s.seq++
	e := &listEvent{at: s.now + d, seq: int64(s.seq), code: code}
	s.pend = append(s.pend, e)
	return e
}

func (s *listSim) Cancel(e *listEvent) {
	if e.gone {
		panic("list sim: cancel of an event not pending")
	}
	e.gone = true
}

func (s *listSim) Run(end int64) {
	for {
		best := -1
		for i, e := range s.pend {
			if !e.gone && (best < 0 || e.at < s.pend[best].at || e.at == s.pend[best].at && e.seq < s.pend[best].seq) {
				best = i
			}
		}
		if best < 0 || s.pend[best].at > end {
			return
		}
		e := s.pend[best]
		s.pend = append(s.pend[:best], s.pend[best+1:]...)
		e.gone = true
		s.now = e.at
		s.run(e.at, e.code)
	}
}

func (s *listSim) Len() int {
	n := 0
	for _, e := range s.pend {
		if !e.gone {
			n++
		}
	}
	return n
}

func (s *listSim) Check() error { return nil }

// agree checks that results agree on everything but timing, and that none
// failed its checks.
func agree(t *testing.T, rs ...Result) {
	t.Helper()
	for _, r := range rs {
		if r.Err != nil {
			t.Fatalf("%s: %v", r.Name, r.Err)
		}
	}
	for _, r := range rs[1:] {
		if r.Checksum != rs[0].Checksum || r.Counts != rs[0].Counts {
			t.Fatalf("%s: checksum %d, counts %s;\nfirst engine: %d, %s", r.Name, r.Checksum, r.Counts, rs[0].Checksum, rs[0].Counts)
		}
	}
}

// The wheel's Step loop, simclock, the container/heap event list and the
// reference list run exactly the same simulation on small versions of each
// model, at 1 ns and at the precision time.Millisecond gives (2^19 ns): the
// same order checksum (over every event's time and code, in the order run)
// and the same statistics; and with check set, every event runs at its own
// time, after every event due before it. The precision changes nothing: the
// checksums at both precisions are the same too. RPC's connections all send
// their first request at time 0, so the first timeouts all fall at 5 s,
// in one instant: FIFO at equal times is exercised.
func TestSimEnginesAgree(t *testing.T) {
	mm1 := mm1Params
	mm1.warm, mm1.end = 2_000*second, 20_000*second
	mm10 := mm10Params
	mm10.warm, mm10.end = 200*second, 2_000*second
	rpc := rpcDefault
	rpc.conns, rpc.warm, rpc.end = 500, 6*second, 40*second
	for _, model := range []string{"MM1", "MM10", "RPC"} {
		var first Result
		for _, precision := range []time.Duration{1, time.Millisecond} {
			var rs []Result
			switch model {
			case "MM1", "MM10":
				p := mm1
				if model == "MM10" {
					p = mm10
				}
				r1, _ := runMMC(StepSim, p, precision, true)
				r2, _ := runMMC(simclockSim, p, precision, true)
				r3, _ := runMMC(heapSim, p, precision, true)
				r4, _ := runMMC(newListSim, p, precision, true)
				rs = []Result{r1, r2, r3, r4}
			case "RPC":
				r1, st := runRPC(StepSim, rpc, precision, true)
				r2, _ := runRPC(simclockSim, rpc, precision, true)
				r3, _ := runRPC(heapSim, rpc, precision, true)
				r4, _ := runRPC(newListSim, rpc, precision, true)
				rs = []Result{r1, r2, r3, r4}
				if st.timeouts == 0 || st.replies == 0 {
					t.Fatalf("RPC: %d timeouts, %d replies: both should occur", st.timeouts, st.replies)
				}
			}
			agree(t, rs...)
			if precision == 1 {
				first = rs[0]
			} else if rs[0].Checksum != first.Checksum || rs[0].Counts != first.Counts {
				t.Fatalf("%s at %v: checksum %d, counts %s; at 1 ns: %d, %s",
					model, precision, rs[0].Checksum, rs[0].Counts, first.Checksum, first.Counts)
			}
			t.Logf("%s: %s", rs[0].Name, rs[0].Counts)
		}
	}
}

// The M/M/1 and M/M/10 models match queueing theory (Erlang C): the mean
// wait in the queue Wq = C(c, a)/(c mu - lambda), a = lambda/mu, and the
// time-average number in the system L = lambda Wq + a, each within a
// tolerance of over 4 standard deviations of the estimate at this run
// length: over 10 seeds, M/M/1 over 2,000,000 s (1.8 million customers)
// gave Wq and L within a standard deviation of 1.8% and 1.7% (theory for
// the time average of L at rho = 0.9: sqrt(2 rho (1+rho)/(mu (1-rho)^4) / T)
// = 1.45% of L), M/M/10 over 200,000 s (1.8 million customers) 2.3% and
// 1.0%; hence 8%, 8%, 10% and 5%. The seeds are fixed, so the test is
// deterministic. It is not loose: the same statistics checked against the
// theory of a service rate 3% off either way fail, and so does a model whose
// service is 10% too fast. It runs on the event heap, the fastest engine;
// TestSimEnginesAgree shows the others run the same simulation.
func TestMMCMatchesTheory(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates about 7 million events")
	}
	for _, c := range []struct {
		p          mmcParams
		end        int64
		tolW, tolL float64
	}{
		{mm1Params, 2_000_000 * second, 0.08, 0.08},
		{mm10Params, 200_000 * second, 0.10, 0.05},
	} {
		p := c.p
		p.warm, p.end = 0, c.end
		_, st := runMMC(heapSim, p, 1, false)
		within := func(st mmcStats, mu float64) (bool, string) {
			wq, l := st.meanWait(), st.meanInSystem()
			twq, tl := erlangC(p.c, p.lambda, mu)
			return math.Abs(wq-twq) <= c.tolW*twq && math.Abs(l-tl) <= c.tolL*tl,
				fmt.Sprintf("Wq %.4f s (theory %.4f), L %.4f (theory %.4f)", wq, twq, l, tl)
		}
		ok, msg := within(st, p.mu)
		t.Logf("%s over %d s: %d served, %s", p.name, c.end/second, st.served, msg)
		if !ok {
			t.Errorf("%s: %s: off by more than %.0f%% (Wq) or %.0f%% (L)", p.name, msg, 100*c.tolW, 100*c.tolL)
		}
		// The customers arrive at lambda per second: a Poisson count, whose
		// standard deviation here is 0.07% of its mean.
		if want := p.lambda * float64(c.end/second); math.Abs(float64(st.arrivals)-want) > 0.01*want {
			t.Errorf("%s: %d arrivals, want about %.0f", p.name, st.arrivals, want)
		}
		for _, f := range []float64{0.97, 1.03} {
			if ok, msg := within(st, f*p.mu); ok {
				t.Errorf("%s: within the tolerance of the theory for mu = %.2f too: %s", p.name, f*p.mu, msg)
			}
		}
		wrong := p
		wrong.mu *= 1.1
		wrong.end /= 4
		_, ws := runMMC(heapSim, wrong, 1, false)
		if ok, msg := within(ws, p.mu); ok {
			t.Errorf("%s: a model serving 10%% too fast passes: %s", p.name, msg)
		}
	}
}

// The RPC model times out the requests whose reply would take longer than
// the timeout: a fraction exp(-5/1.278) = 0.01999 of them. The fraction is
// taken over the requests sent at least one timeout before the end, which
// have all completed (over all completed requests it is biased low: those in
// flight at the end are the long ones). Over 1.6 million such requests its
// standard deviation is 0.55% of it, so the tolerance is 3%; a timeout of
// 4.9 s (2% shorter) or a mean reply time of 1.3 s (1.7% longer) would be
// off by 7% to 8%, and a model whose timeout is 4.5 s fails.
func TestRPCTimeoutFraction(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates about 1.6 million events")
	}
	p := rpcDefault
	p.conns, p.warm, p.end = 1000, 0, 2000*second
	theory := func(p rpcParams) float64 { return math.Exp(-float64(p.timeout) / p.replyMean) }
	_, st := runRPC(heapSim, p, 1, false)
	got := st.timeoutFraction()
	t.Logf("%d settled requests, %d timed out: %.5f (theory %.5f)", st.settled, st.settledTimeouts, got, theory(p))
	if want := theory(p); math.Abs(got-want) > 0.03*want {
		t.Errorf("timeout fraction %.5f, theory %.5f", got, want)
	}
	for _, q := range []rpcParams{{timeout: 4_900_000_000, replyMean: p.replyMean}, {timeout: p.timeout, replyMean: 1.3e9}} {
		if want := theory(q); math.Abs(got-want) <= 0.03*want {
			t.Errorf("timeout fraction %.5f within 3%% of %.5f too (timeout %d ns, mean reply %.0f ns)", got, want, q.timeout, q.replyMean)
		}
	}
	wrong := p
	wrong.timeout = 4_500_000_000
	wrong.end /= 4
	if _, ws := runRPC(heapSim, wrong, 1, false); math.Abs(ws.timeoutFraction()-theory(p)) <= 0.03*theory(p) {
		t.Errorf("a model with a 4.5 s timeout passes: fraction %.5f", ws.timeoutFraction())
	}
}

// engineRun runs a tiny simulation on an engine and returns what ran, as
// "code@time" in order: events 0 and 1 at 10 ns, in that order; 0 cancels
// 1, which is due at the same instant, and schedules 2 at 11 ns and 3 at
// 10 + 2^19 ns, in the next interval at 2^19 ns precision, and 4 at 12 ns.
func engineRun[H any](newSim NewSim[H], precision time.Duration) string {
	var sim Sim[H]
	var hs [5]H
	var ran []string
	run := func(now int64, code int32) {
		ran = append(ran, fmt.Sprintf("%d@%d", code, now))
		if code == 0 {
			sim.Cancel(hs[1])
			hs[2] = sim.Schedule(1, 2)
			hs[3] = sim.Schedule(1<<19, 3)
			hs[4] = sim.Schedule(2, 4)
		}
	}
	sim = newSim(precision, 5, run)
	hs[0] = sim.Schedule(10, 0)
	hs[1] = sim.Schedule(10, 1)
	sim.Run(1 << 20)
	return fmt.Sprint(ran, " pending ", sim.Len())
}

// An event cancelled by another event of the same instant, which runs first,
// does not run, on any engine (the wheel's Step has already taken it as
// due, simclock has moved it to its batch); and events run at their own
// times, in time order, at either precision.
func TestEnginesSameInstantCancel(t *testing.T) {
	const want = "[0@10 2@11 4@12 3@524298] pending 0"
	for _, precision := range []time.Duration{1, time.Millisecond} {
		for name, got := range map[string]string{
			"wheel":     engineRun(StepSim, precision),
			"simclock":  engineRun(simclockSim, precision),
			"eventheap": engineRun(heapSim, precision),
			"list":      engineRun(newListSim, precision),
		} {
			if got != want {
				t.Errorf("%s at %v: ran %s, want %s", name, precision, got, want)
			}
		}
	}
}
