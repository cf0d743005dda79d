package s3

import (
	"fmt"
	"strconv"

	"github.com/storbench/storbench/internal/engine"
)

// MaxObjects bounds --objects, and --objects times --versions: prepare
// keeps every key (and its version ids) in memory, about 60 to 150 bytes
// each, so a billion takes 60 GiB or more; a count past it is a typo, not
// a benchmark.
const MaxObjects = 1_000_000_000

// checkCounts refuses counts beyond MaxObjects, before anything is made.
func checkCounts(c *config) error {
	if c.Objects > MaxObjects {
		return fmt.Errorf("s3: --objects %d: want at most %d (every key is held in memory)", c.Objects, MaxObjects)
	}
	if v := max(c.Versions, 1); c.Objects*v > MaxObjects {
		return fmt.Errorf("s3: --objects %d with --versions %d makes %d objects: want at most %d in all (every key is held in memory)", c.Objects, v, c.Objects*v, MaxObjects)
	}
	return nil
}

// prepareMemory estimates the bytes prepare holds for its objects, keys
// under prefix: each key's string and header, its size, its version id
// (a string header; with versions, the id too, about 64 bytes on the
// servers seen), and retention's id of every version. Doubled: Go's
// collector lets the heap grow to twice what is live before it runs.
func prepareMemory(c *config, prefix string) int64 {
	switch c.Op {
	case "put", "multipart", "multipart-put":
		return 0
	}
	n := int64(c.Objects)
	if c.ListExisting {
		return 0 // bounded by what the listing finds, up to --objects
	}
	key := int64(len(prefix)+len("w/p")+len(strconv.Itoa(c.Concurrent))+len(strconv.FormatInt(n, 10))+7) &^ 7
	per := 16 + key + 8 + 16
	if c.versionedListing() {
		per += 64
	}
	total := n * per
	if c.Op == "retention" {
		total += n * int64(max(c.Versions, 1)) * (16 + 64)
	}
	return 2 * total
}

// checkMemory refuses a phase whose objects would not fit in the memory
// this host has (engine.CheckMemory), before the bucket is touched.
func checkMemory(c *config, prefix string) error {
	return engine.CheckMemory(fmt.Sprintf("s3: --objects %d", c.Objects), prepareMemory(c, prefix),
		"give fewer objects, or run on more hosts (each prepares its own)")
}
