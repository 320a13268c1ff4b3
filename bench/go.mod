module github.com/gotimingwheel/timingwheel/bench

go 1.25

replace github.com/gotimingwheel/timingwheel => ../

require (
	github.com/benbjohnson/clock v1.3.5
	github.com/coder/quartz v0.3.1
	github.com/gotimingwheel/timingwheel v0.0.0-00010101000000-000000000000
	github.com/jonboulle/clockwork v0.5.0
	gonum.org/v1/plot v0.17.0
	k8s.io/utils v0.0.0-20250604170112-4c0f3b243397
)

require (
	codeberg.org/go-fonts/liberation v0.5.0 // indirect
	codeberg.org/go-latex/latex v0.2.0 // indirect
	codeberg.org/go-pdf/fpdf v0.11.1 // indirect
	git.sr.ht/~sbinet/gg v0.7.0 // indirect
	github.com/ajstarks/svgo v0.0.0-20211024235047-1546f124cd8b // indirect
	github.com/golang/freetype v0.0.0-20170609003504-e2365dfdc4a0 // indirect
	golang.org/x/image v0.30.0 // indirect
	golang.org/x/text v0.28.0 // indirect
)
