module github.com/gotimingwheel/timingwheel

go 1.23

require (
	github.com/google/go-cmp v0.7.0
	github.com/leanovate/gopter v0.2.11
	pgregory.net/rapid v1.3.0
)
