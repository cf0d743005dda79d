//go:build !(linux && (amd64 || arm64))

package md

import "syscall"

// The md engine calls Linux system calls directly; elsewhere Prepare refuses
// to run and these are never reached.

const (
	atRemoveDir = 0
	atFdcwd     = -100
	supported   = false
)

func mkdirat(bool, int, *byte, uint32) syscall.Errno            { return syscall.ENOSYS }
func openat(bool, int, *byte, int, uint32) (int, syscall.Errno) { return -1, syscall.ENOSYS }
func closeFd(bool, int) syscall.Errno                           { return syscall.ENOSYS }
func fstatat(bool, int, *byte, *syscall.Stat_t) syscall.Errno   { return syscall.ENOSYS }
func unlinkat(bool, int, *byte, int) syscall.Errno              { return syscall.ENOSYS }
func renameat(bool, int, *byte, int, *byte) syscall.Errno       { return syscall.ENOSYS }
func writeFd(int, []byte) (int, syscall.Errno)                  { return 0, syscall.ENOSYS }
func readFd(int, []byte) (int, syscall.Errno)                   { return 0, syscall.ENOSYS }
func syncAll()                                                  {}
func fsyncFd(int) syscall.Errno                                 { return syscall.ENOSYS }
func getdents(int, []byte) (int, syscall.Errno)                 { return 0, syscall.ENOSYS }

func threadCPU() int64 { return 0 }

func inMemoryFS(string) bool { return false }

func schedYield() {}
