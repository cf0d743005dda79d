//go:build race

package analyze

// raceBuild says this test binary was built with -race.
const raceBuild = true
