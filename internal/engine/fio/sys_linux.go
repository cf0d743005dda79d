package fio

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/storbench/storbench/internal/model"
)

// sharedFSTypes are file systems (statfs f_type) that several hosts mount
// as one, so every host's files count against one free space.
var sharedFSTypes = map[int64]string{
	0x6969:     "NFS",
	0xFF534D42: "CIFS",
	0xFE534D42: "SMB",
	0x0BD00BD0: "Lustre",
	0x47504653: "GPFS",
	0x00C36400: "CephFS",
	0x19830326: "BeeGFS",
}

// fuseMagic is statfs's f_type of every FUSE file system.
const fuseMagic = 0x65735546

// mounts lists this process's mounts; tests of a FUSE file system
// several hosts mount (GlusterFS) replace it.
var mounts = func() []model.Mount { return model.ReadMounts("/proc/self/mountinfo") }

// sharedFUSE names the FUSE file system holding dir when several hosts
// mount it as one: a client of a networked volume (GlusterFS's
// "fuse.glusterfs" from "server:/volume", sshfs's "user@host:/path"),
// which every client sees with the same type and volume whichever server
// it mounted from; "" for a local FUSE file system. The volume, not the
// server, names it (fsOf adds the size, as for NFS).
func sharedFUSE(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	m, ok := model.MountOf(abs, mounts())
	if !ok || !strings.HasPrefix(m.FSType, "fuse.") {
		return ""
	}
	_, vol, networked := strings.Cut(m.Source, ":")
	if !networked || vol == "" {
		return ""
	}
	return strings.TrimPrefix(m.FSType, "fuse.") + " " + vol
}

// statfs is syscall.Statfs; tests of file systems this machine cannot
// mount (a network one several hosts share) replace it.
var statfs = syscall.Statfs

// freeSpace returns the bytes an unprivileged writer may still use on the
// file system holding dir, and the name of that file system when it is
// one several hosts share. ok is false when the file system does not tell
// (it reports no blocks, as some FUSE file systems do).
func freeSpace(dir string) (free int64, shared string, ok bool) {
	fs, ok := fsOf(dir)
	return fs.free, fs.shared, ok
}

// fsInfo is what statfs tells of the file system holding a directory.
type fsInfo struct {
	free   int64
	shared string // its name when several hosts mount it as one
	// id names the file system across hosts (engine.Space.FS).
	id string
	// name is its type for a message.
	name string
}

// fsOf stats dir's file system; ok is false when it does not tell its
// free space (it reports no blocks).
func fsOf(dir string) (fs fsInfo, ok bool) {
	var st syscall.Statfs_t
	if err := statfs(dir, &st); err != nil || st.Blocks == 0 {
		return fsInfo{}, false
	}
	fs = fsInfo{free: int64(st.Bavail) * int64(st.Bsize), shared: sharedFSTypes[int64(st.Type)]}
	if st.Type == fuseMagic {
		fs.shared = sharedFUSE(dir)
	}
	fs.name = fs.shared
	if fs.name == "" {
		fs.name = localFSTypes[int64(st.Type)]
	}
	if fs.shared != "" {
		// Every client of one export sees its type and size; its fsid
		// is each client's own device number.
		fs.id = fmt.Sprintf("%s/%d", fs.shared, int64(st.Blocks)*int64(st.Bsize))
	} else if boot := bootID(); boot != "" {
		// A local file system: its fsid (device number) names it on
		// this machine only, so agents on one machine, each with its
		// own directory on it, count against one free space.
		fs.id = fmt.Sprintf("%s/%x:%x/%x", boot, uint32(st.Fsid.X__val[0]), uint32(st.Fsid.X__val[1]), int64(st.Type))
	}
	return fs, true
}

// localFSTypes name a few local file systems (statfs f_type) in messages.
var localFSTypes = map[int64]string{
	0x01021994: "tmpfs",
	0xEF53:     "ext4",
	0x58465342: "XFS",
	0x9123683E: "Btrfs",
	0x2FC12FC1: "ZFS",
	0x794C7630: "overlay",
}

// bootID names this machine's boot ("" when unknown): two agents that
// read the same one run on one kernel, whose device numbers they share.
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
