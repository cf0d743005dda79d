package engine

// Space is what one host's part of a phase needs of the file system of its
// directory, and what that file system has free as the host sees it. The
// controller asks every host of a phase for it (Plan.SpaceOf) and adds up
// the needs of hosts that share one file system, which no host alone can
// do: each sees only its own plan.
type Space struct {
	// Dir is the phase's directory on this host.
	Dir string `json:"dir"`
	// NeedBytes is at least what this host's part lays out, in bytes.
	NeedBytes float64 `json:"need_bytes"`
	// Known is false when the file system does not tell its free space
	// (statfs reports no blocks, as some FUSE and network file systems
	// do): nothing is refused then, and the user is told so.
	Known bool `json:"known"`
	// FreeBytes is what an unprivileged writer may still use, in bytes.
	FreeBytes int64 `json:"free_bytes,omitempty"`
	// FS identifies the file system across hosts: hosts that report the
	// same FS count against one free space. A local file system is named
	// with its machine's boot id, so only agents on one machine share it;
	// a network file system several machines mount, by its type and size.
	FS string `json:"fs,omitempty"`
	// FSName is the file system's type for a message ("tmpfs", "NFS").
	FSName string `json:"fs_name,omitempty"`
	// SharedFiles says every host works on the same files: they count
	// once on a file system the hosts share.
	SharedFiles bool `json:"shared_files,omitempty"`
	// What names what lays out the files, for a refusal ("fio job w"),
	// and Fix says what to do instead.
	What string `json:"what,omitempty"`
	Fix  string `json:"fix,omitempty"`
}
