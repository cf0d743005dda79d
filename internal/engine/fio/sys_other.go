//go:build !linux

package fio

// freeSpace is not checked where statfs differs: the file system does not
// tell, as far as storbench knows.
func freeSpace(string) (int64, string, bool) { return 0, "", false }

// fsInfo is what statfs tells of a file system (Linux only).
type fsInfo struct {
	free             int64
	shared, id, name string
}

// fsOf does not tell where statfs differs.
func fsOf(string) (fsInfo, bool) { return fsInfo{}, false }
