package workload

// Agree is agree, for the package's external tests.
var Agree = agree
