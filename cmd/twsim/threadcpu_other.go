//go:build !linux

package main

import "time"

// threadCPU is not available here: -clock thread reports an error.
func threadCPU() (time.Duration, bool) { return 0, false }
