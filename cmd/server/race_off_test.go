//go:build !race

package main

// raceEnabled says whether this test binary runs under the race detector;
// the server processes the tests start are then built with it too.
const raceEnabled = false
