package workload

import (
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"time"
)

// The simulation workloads (docs/workloads.md, section 5): an M/M/1 queue,
// an M/M/10 queue and RPC clients with timeouts, each run on the engines of
// des.go, which must agree exactly.

// second is one second of simulated time, in ns.
const second = int64(time.Second)

// expDelay is exp_sample(mean) with a draw of 0 made 1 ns, so that every
// event is strictly after the one that schedules it (simclock runs an
// AfterFunc of 0 at once, on a goroutine of its own).
func expDelay(r *SplitMix64, mean float64) int64 { return max(r.ExpSample(mean), 1) }

// drawBound returns how many draws to make for a count whose mean is x: x
// plus 8 standard deviations of a Poisson count, plus 64, more than a run
// needs but with a negligible probability. The models panic, asking for
// more, if a run ever needs more (the fixed seeds do not).
func drawBound(x float64) int { return int(x+8*math.Sqrt(x)) + 64 }

// precisionName returns the suffix of a row's name: "" at 1 ns, "_P19" for
// 2^19 ns (what time.Millisecond gives), "_P<b>" for 2^b ns.
func precisionName(precision time.Duration) string {
	if precision <= 1 {
		return ""
	}
	return fmt.Sprintf("_P%d", bits.Len64(uint64(precision))-1)
}

// simulate runs a model on a new engine, made by mk after the model's
// arrays: fill schedules its first events at time 0; the events up to warm
// run untimed, then, after a garbage collection, those up to end are timed,
// in 16 slices (to report progress, and with check set to check the
// engine's invariants between them; the slices change nothing in what
// runs). It fills res's timing fields, with as bytes per alarm the live
// heap of the engine per pending event after the warm-up, and returns the
// number of events timed.
func simulate[H any](res *Result, mk func() Sim[H], tr *trace, fill func(), warm, end int64, check bool) int {
	m0 := heapAfterGC()
	sim := mk()
	fill()
	sim.Run(warm)
	res.BytesPerAlarm = perAlarm(m0, heapAfterGC(), sim.Len())
	if check {
		if res.Err = checkSim(sim); res.Err != nil {
			return 0
		}
	}
	warmEvents := tr.events
	runtime.GC()
	_, a0 := memStats()
	timed(res.Name, true)
	start := Now()
	for k := int64(1); k <= 16; k++ {
		sim.Run(warm + (end-warm)*k/16)
		if check {
			if res.Err = checkSim(sim); res.Err != nil {
				break
			}
		}
		progress(res.Name, int(k), 16)
	}
	res.Elapsed = Now() - start
	timed(res.Name, false)
	_, a1 := memStats()
	n := tr.events - warmEvents
	res.NsPerOp = float64(res.Elapsed.Nanoseconds()) / float64(max(n, 1))
	res.AllocsPerOp = float64(a1-a0) / float64(max(n, 1))
	res.Checksum = tr.cs
	if res.Err == nil {
		res.Err = tr.err
	}
	return n
}

// mmcParams define an M/M/c run.
type mmcParams struct {
	name       string
	c          int     // servers
	lambda, mu float64 // arrival rate, service rate of one server, per second
	seed       uint64
	warm, end  int64 // ns: the untimed warm-up ends at warm, the run at end
}

var (
	mm1Params  = mmcParams{name: "MM1", c: 1, lambda: 0.9, mu: 1, seed: 1, warm: 5_000 * second, end: 305_000 * second}
	mm10Params = mmcParams{name: "MM10", c: 10, lambda: 9, mu: 1, seed: 10, warm: 500 * second, end: 30_500 * second}
)

// mmcStats are what an M/M/c run counts; all engines must agree on them.
type mmcStats struct {
	arrivals, started, served int   // customers arrived, whose service began, departed
	wait                      int64 // ns: summed over the customers whose service began, time from arrival to it
	sojourn                   int64 // ns: summed over the departed, time from arrival to departure
	area                      int64 // ns: the number in the system integrated over time, up to the last event
	last                      int64 // ns: the time of the last event
	maxQueue                  int   // the longest the queue got (customers waiting, not in service)
}

// mmc is an M/M/c queue: customers arrive one at a time, each is served by
// one of c servers, in arrival order (FIFO), the queue is unbounded.
// Event code 0 is the next arrival, code 1+s the departure from server s.
type mmc[H any] struct {
	sim       Sim[H]
	tr        *trace
	ia, svc   []int64 // customer k arrives ia[k] after customer k-1 (customer 0 at ia[0]) and needs svc[k] of service
	free      []int32 // idle servers, a stack: the last pushed is taken first
	inService []int64 // by server: the arrival time of its customer
	queue     []int64 // arrival times of the waiting customers, from queue[head]
	head      int
	mmcStats
}

// run is the handler of every event.
func (m *mmc[H]) run(now int64, code int32) {
	m.tr.begin(now, code)
	m.area += int64(m.arrivals-m.served) * (now - m.last)
	m.last = now
	if code == 0 {
		m.arrive(now)
	} else {
		m.depart(now, code-1)
	}
}

func (m *mmc[H]) schedule(d int64, code int32) {
	m.tr.scheduled(d, code)
	m.sim.Schedule(d, code)
}

// arrive: customer k = arrivals arrives; it schedules customer k+1's
// arrival, then starts service on an idle server or joins the queue.
func (m *mmc[H]) arrive(now int64) {
	m.arrivals++
	if m.arrivals == len(m.ia) {
		panic(fmt.Sprintf("%s: all %d pre-generated customers used; draw more", m.tr.name, len(m.ia)))
	}
	m.schedule(m.ia[m.arrivals], 0)
	if n := len(m.free); n > 0 {
		s := m.free[n-1]
		m.free = m.free[:n-1]
		m.start(now, now, s)
		return
	}
	m.queue = append(m.queue, now)
	m.maxQueue = max(m.maxQueue, len(m.queue)-m.head)
}

// start starts service, on server s, of the customer who arrived at
// arrived: in FIFO order the started-th customer, whose service time is
// svc[started].
func (m *mmc[H]) start(now, arrived int64, s int32) {
	m.wait += now - arrived
	m.inService[s] = arrived
	d := m.svc[m.started]
	m.started++
	m.schedule(d, 1+s)
}

// depart: server s's customer leaves; the head of the queue, if any, starts
// service on it.
func (m *mmc[H]) depart(now int64, s int32) {
	m.served++
	m.sojourn += now - m.inService[s]
	if m.head == len(m.queue) {
		m.free = append(m.free, s)
		return
	}
	a := m.queue[m.head]
	m.head++
	if m.head == len(m.queue) {
		m.queue, m.head = m.queue[:0], 0
	} else if m.head >= 1024 && 2*m.head >= len(m.queue) {
		m.queue, m.head = m.queue[:copy(m.queue, m.queue[m.head:])], 0
	}
	m.start(now, a, s)
}

// runMMC runs an M/M/c model on an engine from newSim with the given
// precision, and returns the result and the statistics.
func runMMC[H any](newSim NewSim[H], p mmcParams, precision time.Duration, check bool) (Result, mmcStats) {
	r := NewSplitMix64(p.seed)
	k := drawBound(p.lambda * float64(p.end) / float64(second))
	m := &mmc[H]{ia: make([]int64, k), svc: make([]int64, k), inService: make([]int64, p.c)}
	ma, ms := 1e9/p.lambda, 1e9/p.mu // mean interarrival and service times, ns
	for i := range k {
		m.ia[i] = expDelay(r, ma)
		m.svc[i] = expDelay(r, ms)
	}
	for s := p.c - 1; s >= 0; s-- {
		m.free = append(m.free, int32(s))
	}
	res := Result{Name: p.name + precisionName(precision), N: p.c}
	m.tr = newTrace(p.c+1, check)
	m.tr.name = res.Name
	mk := func() Sim[H] { m.sim = newSim(precision, p.c+1, m.run); return m.sim }
	fill := func() { m.schedule(m.ia[0], 0) }
	timedEvents := simulate(&res, mk, m.tr, fill, p.warm, p.end, check)
	st := m.mmcStats
	res.Counts = fmt.Sprintf("events=%d timed_events=%d arrivals=%d started=%d served=%d wait_ns=%d sojourn_ns=%d area_ns=%d last_ns=%d max_queue=%d pending_end=%d",
		m.tr.events, timedEvents, st.arrivals, st.started, st.served, st.wait, st.sojourn, st.area, st.last, st.maxQueue, m.sim.Len())
	wq, l := st.meanWait(), st.meanInSystem()
	twq, tl := erlangC(p.c, p.lambda, p.mu)
	res.Comments = append(res.Comments,
		fmt.Sprintf("# %s N=%d %s", res.Name, p.c, res.Counts),
		fmt.Sprintf("# %s N=%d mean_wait_s=%.3f (theory %.3f) mean_in_system=%.3f (theory %.3f)", res.Name, p.c, wq, twq, l, tl))
	return res, st
}

// meanWait is the mean wait in the queue, in seconds, of the customers whose
// service began.
func (s mmcStats) meanWait() float64 {
	return float64(s.wait) / float64(max(s.started, 1)) / float64(second)
}

// meanInSystem is the time-average number of customers in the system.
func (s mmcStats) meanInSystem() float64 { return float64(s.area) / float64(max(s.last, 1)) }

// erlangC returns queueing theory's mean wait in the queue Wq (seconds) and
// mean number in the system L of an M/M/c queue with arrival rate lambda
// and service rate mu per server: with a = lambda/mu and C(c, a) the
// Erlang C probability that an arrival waits, Wq = C(c, a)/(c mu - lambda)
// and L = lambda Wq + a.
func erlangC(c int, lambda, mu float64) (wq, l float64) {
	a := lambda / mu
	term, sum := 1.0, 0.0 // a^k/k!, and its sum over k < c
	for k := 0; k < c; k++ {
		sum += term
		term *= a / float64(k+1)
	}
	last := term * float64(c) / (float64(c) - a) // a^c/c! * c/(c-a)
	wq = last / (sum + last) / (float64(c)*mu - lambda)
	return wq, lambda*wq + a
}

// MM1 runs MM1 (docs/workloads.md): an M/M/1 queue, lambda = 0.9 and mu = 1
// per second, seed 1, 5,000 s untimed, then 300,000 s timed, on an engine
// from newSim with the given precision.
func MM1[H any](newSim NewSim[H], precision time.Duration, check bool) Result {
	r, _ := runMMC(newSim, mm1Params, precision, check)
	return r
}

// MM10 runs MM10 (docs/workloads.md): an M/M/10 queue, lambda = 9 and mu =
// 1 per second per server, seed 10, 500 s untimed, then 30,000 s timed.
func MM10[H any](newSim NewSim[H], precision time.Duration, check bool) Result {
	r, _ := runMMC(newSim, mm10Params, precision, check)
	return r
}

// rpcParams define an RPC run.
type rpcParams struct {
	name      string
	conns     int
	timeout   int64   // ns
	replyMean float64 // ns
	seed      uint64
	warm, end int64 // ns
}

var rpcDefault = rpcParams{name: "RPC", conns: 20_000, timeout: 5 * second, replyMean: 1.278e9, seed: 20_000,
	warm: 10 * second, end: 45 * second}

// rpcStats are what an RPC run counts; all engines must agree on them.
type rpcStats struct {
	requests, replies, timeouts int
	latency                     int64 // ns: summed over the replies, time from request to reply
	// The requests sent at least one timeout before the end have all
	// completed by then: settled counts them, settledTimeouts those that
	// timed out. (Over all completions the fraction of timeouts is biased
	// low: the requests still in flight at the end are the long ones.)
	settled, settledTimeouts int
}

// rpc is a set of clients, one connection each, each with one request in
// flight: a request arms a timeout and the reply comes after an
// exponential time; whichever comes first cancels the other, and the
// connection sends its next request at once. Event code 2i is connection
// i's reply, 2i+1 its timeout.
type rpc[H any] struct {
	sim          Sim[H]
	tr           *trace
	timeout      int64
	settleBy     int64   // ns: the last send time of a settled request
	rd           []int64 // request r's reply comes rd[r] after it is sent
	sent         []int64 // by connection: when its request was sent
	timer, reply []H     // by connection: its pending timeout and reply
	rpcStats
}

// send sends connection i's next request: its timeout, then its reply.
func (m *rpc[H]) send(i int, now int64) {
	if m.requests == len(m.rd) {
		panic(fmt.Sprintf("%s: all %d pre-generated replies used; draw more", m.tr.name, len(m.rd)))
	}
	m.sent[i] = now
	c := int32(2 * i)
	m.tr.scheduled(m.timeout, c+1)
	m.timer[i] = m.sim.Schedule(m.timeout, c+1)
	d := m.rd[m.requests]
	m.requests++
	m.tr.scheduled(d, c)
	m.reply[i] = m.sim.Schedule(d, c)
}

// run is the handler of every event.
func (m *rpc[H]) run(now int64, code int32) {
	m.tr.begin(now, code)
	i := int(code >> 1)
	settled := m.sent[i] <= m.settleBy
	if settled {
		m.settled++
	}
	if code&1 == 0 { // the reply: cancel the timeout
		m.replies++
		m.latency += now - m.sent[i]
		m.tr.cancelled(code + 1)
		m.sim.Cancel(m.timer[i])
	} else { // the timeout: cancel the reply
		m.timeouts++
		if settled {
			m.settledTimeouts++
		}
		m.tr.cancelled(code - 1)
		m.sim.Cancel(m.reply[i])
	}
	m.send(i, now)
}

// runRPC runs an RPC model on an engine from newSim with the given
// precision, and returns the result and the statistics.
func runRPC[H any](newSim NewSim[H], p rpcParams, precision time.Duration, check bool) (Result, rpcStats) {
	r := NewSplitMix64(p.seed)
	// A connection completes a request every E[min(reply, timeout)] on average.
	perConn := p.replyMean * (1 - math.Exp(-float64(p.timeout)/p.replyMean))
	m := &rpc[H]{timeout: p.timeout, settleBy: p.end - p.timeout, sent: make([]int64, p.conns), timer: make([]H, p.conns), reply: make([]H, p.conns)}
	m.rd = make([]int64, p.conns+drawBound(float64(p.conns)*float64(p.end)/perConn))
	for i := range m.rd {
		m.rd[i] = expDelay(r, p.replyMean)
	}
	res := Result{Name: p.name + precisionName(precision), N: p.conns}
	m.tr = newTrace(2*p.conns, check)
	m.tr.name = res.Name
	mk := func() Sim[H] { m.sim = newSim(precision, 2*p.conns, m.run); return m.sim }
	fill := func() {
		for i := range p.conns {
			m.send(i, 0)
		}
	}
	timedEvents := simulate(&res, mk, m.tr, fill, p.warm, p.end, check)
	st := m.rpcStats
	res.Counts = fmt.Sprintf("events=%d timed_events=%d requests=%d replies=%d timeouts=%d latency_ns=%d settled=%d settled_timeouts=%d pending_end=%d",
		m.tr.events, timedEvents, st.requests, st.replies, st.timeouts, st.latency, st.settled, st.settledTimeouts, m.sim.Len())
	res.Comments = append(res.Comments,
		fmt.Sprintf("# %s N=%d %s", res.Name, p.conns, res.Counts),
		fmt.Sprintf("# %s N=%d timeout_fraction=%.5f (theory %.5f)", res.Name, p.conns,
			st.timeoutFraction(), math.Exp(-float64(p.timeout)/p.replyMean)))
	return res, st
}

// timeoutFraction is the fraction of the settled requests that timed out.
func (s rpcStats) timeoutFraction() float64 {
	return float64(s.settledTimeouts) / float64(max(s.settled, 1))
}

// RPC runs RPC (docs/workloads.md): 20,000 connections, a 5 s timeout per
// request, replies after an exponential time of mean 1.278 s, seed 20,000,
// 10 s untimed, then 35 s timed.
func RPC[H any](newSim NewSim[H], precision time.Duration, check bool) Result {
	r, _ := runRPC(newSim, rpcDefault, precision, check)
	return r
}
