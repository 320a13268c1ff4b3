module github.com/gotimingwheel/timingwheel/bench

go 1.25

replace github.com/gotimingwheel/timingwheel => ../
