//go:build !race

package s3

// raceBuild says this test binary was built with -race.
const raceBuild = false
