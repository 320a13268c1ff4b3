//go:build !linux

package pool

// hugeMark is empty where records are not put on huge pages
// (hugepage_linux.go).
type hugeMark struct{}

// markRecords does nothing outside Linux.
func (p *Pool[T]) markRecords([]Record[T]) {}
