// This example uses the queue without a timing wheel: Dijkstra's shortest
// paths on a graph with positive integer edge lengths. Distances settle in
// increasing order, so the queue's minimum allowed key can follow the
// distance being settled, and Change serves as decrease-key.
package priorityqueue_test

import (
	"fmt"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/priorityqueue"
)

type edge struct{ to, length int }

// shortestPaths returns the distance from src to every node (-1 where there
// is no path). Each edge length must be at least 1: a node settled at
// distance d only ever offers distances above d, which the queue accepts.
func shortestPaths(graph [][]edge, src int) []int64 {
	dist := make([]int64, len(graph))
	pending := make([]alarm.Alarm, len(graph)) // each node's element while queued
	for i := range dist {
		dist[i] = -1
	}
	q := priorityqueue.New[int](levelbits.Default(), len(graph))
	pending[src], _ = q.Add(0, src)
	dist[src] = 0
	settle := func(e priorityqueue.Element[int]) {
		for _, ed := range graph[e.Value] {
			d := e.Key + int64(ed.length)
			switch {
			case dist[ed.to] == -1: // first path to it
				dist[ed.to] = d
				pending[ed.to], _ = q.Add(d, ed.to)
			case d < dist[ed.to] && q.Mem(pending[ed.to]): // a shorter one
				dist[ed.to] = d
				q.Change(pending[ed.to], d)
			}
		}
	}
	for {
		k, ok := q.MinKey()
		if !ok {
			return dist
		}
		// Remove every node at the smallest distance, in the order they
		// were reached; the handler adds and shortens others.
		q.IncreaseMinAllowedKey(k+1, settle)
	}
}

func Example_shortestPaths() {
	graph := [][]edge{
		0: {{1, 7}, {2, 9}, {5, 14}},
		1: {{0, 7}, {2, 10}, {3, 15}},
		2: {{0, 9}, {1, 10}, {3, 11}, {5, 2}},
		3: {{1, 15}, {2, 11}, {4, 6}},
		4: {{3, 6}, {5, 9}},
		5: {{0, 14}, {2, 2}, {4, 9}},
		6: {}, // unreachable
	}
	fmt.Println(shortestPaths(graph, 0))
	// Output:
	// [0 7 9 20 20 11 -1]
}
