module github.com/gotimingwheel/timingwheel/bench

go 1.25

replace github.com/gotimingwheel/timingwheel => ../

require github.com/gotimingwheel/timingwheel v0.0.0-00010101000000-000000000000
