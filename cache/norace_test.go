//go:build !race

package cache

// raceEnabled reports whether the test binary was built with -race.
const raceEnabled = false
