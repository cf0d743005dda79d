//go:build !race

package cli

// raceBuild says this test binary was built with -race.
const raceBuild = false
