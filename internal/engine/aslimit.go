package engine

import (
	"fmt"
	"strings"
	"syscall"
)

// MinAddressSpace is the address-space limit (RLIMIT_AS, ulimit -v) under
// which storbench runs reliably. Measured with the release binary (static,
// amd64, Go 1.26): it starts from 762,000 KiB (below, the Go runtime
// fails before any of storbench's code runs: "out of memory allocating
// heap arena map", "failed to reserve page summary memory"; a build with
// cgo needs 807,000 KiB, and under it the catalog's SQLite library fails
// at its start: "mustMalloc TODO OOM"); between 1.2 and 1.3 GB even
// `storbench version` fails ("fatal error: out of memory"), and an md
// phase of 8 workers runs from 1.4 GB. A build with cgo reserves 8 MiB
// more per thread. docs/usage.md says so.
const MinAddressSpace = 2 << 30

// AddressLimit is this process's address-space limit in bytes (ulimit
// -v), which its children (fio) inherit; 0 when there is none.
func AddressLimit() uint64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err != nil || lim.Cur == ^uint64(0) {
		return 0
	}
	return lim.Cur
}

// AddressLimitText says in a few words what limit is set: "the
// address-space limit (ulimit -v) is 1100000 KiB".
func AddressLimitText(limit uint64) string {
	return fmt.Sprintf("the address-space limit (ulimit -v) is %d KiB", limit>>10)
}

// AddressLimitNote is what to add to msg, a failure's text, when it ran
// out of memory and an address-space limit is set: what the limit is, as
// the likely cause. "" otherwise.
func AddressLimitNote(msg string) string {
	limit := AddressLimit()
	if limit == 0 || !strings.Contains(msg, "Cannot allocate memory") && !strings.Contains(msg, "cannot allocate memory") {
		return ""
	}
	return AddressLimitText(limit) + ": raise it or remove it (fio's buffers take bs x iodepth x numjobs)"
}
