package queue

import "github.com/gotimingwheel/timingwheel/levelbits"

// New is NewTimed with shift 0, time and key the same, as
// priorityqueue.New makes it.
func New[T any](lb levelbits.LevelBits, capacity int) *Queue[T] {
	return NewTimed[T](lb, capacity, 0)
}
