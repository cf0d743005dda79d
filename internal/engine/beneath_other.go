//go:build !linux

package engine

// openBeneath has no openat2 to call here: openDirAt opens with
// O_NOFOLLOW.
func openBeneath(int, string, int) (int, error) { return -1, errNoOpenat2 }
