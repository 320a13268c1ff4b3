module github.com/gotimingwheel/timingwheel

go 1.23
