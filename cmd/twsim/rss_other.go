//go:build !linux

package main

// peakRSS is not available here: the peak RSS column shows "-".
func peakRSS() (int64, bool) { return 0, false }
