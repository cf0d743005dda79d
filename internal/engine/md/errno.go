package md

import (
	"strconv"
	"syscall"
)

// errnoNames are the kinds a user reads in error counts. Anything else is
// reported as "errno N".
var errnoNames = map[syscall.Errno]string{
	syscall.ENOSPC:       "ENOSPC",
	syscall.EDQUOT:       "EDQUOT",
	syscall.EMFILE:       "EMFILE",
	syscall.ENFILE:       "ENFILE",
	syscall.EACCES:       "EACCES",
	syscall.EPERM:        "EPERM",
	syscall.EEXIST:       "EEXIST",
	syscall.ENOENT:       "ENOENT",
	syscall.ENOTDIR:      "ENOTDIR",
	syscall.ENOTEMPTY:    "ENOTEMPTY",
	syscall.EROFS:        "EROFS",
	syscall.EIO:          "EIO",
	syscall.ENAMETOOLONG: "ENAMETOOLONG",
	syscall.ESTALE:       "ESTALE",
	syscall.EMLINK:       "EMLINK",
	syscall.EINTR:        "EINTR",
	syscall.ENOSYS:       "ENOSYS",
	syscall.EBADF:        "EBADF",
	syscall.EFBIG:        "EFBIG",
	errVerify:            "data differs",
}

// errnoName returns the symbolic name of e, such as "ENOSPC".
func errnoName(e syscall.Errno) string {
	if n, ok := errnoNames[e]; ok {
		return n
	}
	return "errno " + strconv.Itoa(int(e))
}
