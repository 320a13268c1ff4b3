//go:build !linux

package pool

// releaseRecords does nothing outside Linux (release_linux.go): the
// runtime returns a dropped array's memory in its own time.
func releaseRecords[T any]([]Record[T]) {}
