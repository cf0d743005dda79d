package cluster

import (
	"fmt"
	"os"
	"syscall"
)

// dropCachesPath is the kernel's knob; tests never write it unless root.
var dropCachesPath = "/proc/sys/vm/drop_caches"

// DropCaches writes dirty pages back and drops the page cache, dentries and
// inodes ("sync; echo 3 > /proc/sys/vm/drop_caches"), as the WEKA procedure
// asks between tests. It needs root.
func DropCaches() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("dropping caches needs root")
	}
	syscall.Sync()
	if err := os.WriteFile(dropCachesPath, []byte("3\n"), 0); err != nil {
		return fmt.Errorf("drop caches: %v", err)
	}
	return nil
}
