package md

import "github.com/storbench/storbench/internal/engine"

// flags are how `storbench md` shows the settings (Info.Flags), with
// mdtest's letters where they do not clash with storbench's own.
var flags = []engine.Flag{
	{Key: "dir", Name: "directory", Short: "d", Help: "target directory; everything goes under DIR/storbench/<run id>/ and is removed afterwards", Default: "storbench-data"},
	{Key: "workers", Name: "workers", Short: "t", Help: "workers on each host (default: one per CPU); not mdtest's -t, which takes no value: drop that one", NonZero: true, LeftOut: "one worker per CPU"},
	{Key: "items", Name: "items", Short: "n", Help: "files and directories each worker creates per iteration", NonZero: true},
	{Key: "iterations", Name: "iterations", Short: "i", Help: "times to repeat the whole sequence; the summary gives max, min, mean and std dev across them", NonZero: true},
	{Key: "depth", Name: "depth", Short: "z", Help: "depth of each directory tree (0: one directory)", ZeroMeans: "one directory per tree"},
	{Key: "branch", Name: "branch", Short: "b", Help: "subdirectories per tree directory", NonZero: true},
	{Key: "files_only", Name: "files-only", Short: "F", Help: "only file operations"},
	{Key: "dirs_only", Name: "dirs-only", Short: "D", Help: "only directory operations"},
	{Key: "unique_dir", Name: "unique-dir", Short: "u", Help: "a tree per worker (default: all workers share one tree)"},
	{Key: "stonewall", Name: "stonewall", Short: "W", Help: "end the create operations after this time (e.g. 30s); then every worker of every host creates up to the largest count any reached (--wear-out), as mdtest -W and IO500", NonZero: true, LeftOut: "no stonewall"},
	{Key: "wear_out", Name: "wear-out", Help: "with -W: every worker creates up to the largest count any worker reached by the stonewall, inside the create's time (false: each stops at the stonewall with its own count)", Default: "true", With: "stonewall"},
	{Key: "random", Name: "random", Short: "R", Help: "stat and read items in a random order"},
	{Key: "sync", Name: "sync", Short: "Y", Help: "flush every file system (sync) at the end of each operation, inside its time, as mdtest -Y"},
	{Key: "sync_file", Name: "sync-file", Short: "y", Help: "flush each file (fsync) after writing it, inside the create's time, as mdtest -y"},
	{Key: "write_bytes", Name: "write-bytes", Short: "w", Help: "bytes to write to each file on creation (e.g. 4k)", Default: "0", ZeroMeans: "empty files"},
	{Key: "read_bytes", Name: "read-bytes", Short: "e", Help: "bytes to read from each file in file-read (e.g. 4k)", Default: "0", ZeroMeans: "no data read"},
	{Key: "verify", Name: "verify", Short: "X", Help: "check in file-read that every byte read is what file-create wrote, as mdtest -X (needs --read-bytes)"},
	{Key: "rename", Name: "rename", Help: "also rename every file (file-rename)"},
	{Key: "stride", Name: "stride", Short: "N", Help: "as mdtest 3.3+'s -N, in hosts: stat the items of the worker N hosts further on, read those 2N hosts on and remove those 3N hosts on (one host: N ranks); -N 1 makes no client read from its own cache (hosts must share DIR)", ZeroMeans: "every worker works on its own items (mdtest's local)"},
	{Key: "rank_stride", Name: "rank-stride", Help: "the rank stride of mdtest before 3.3: stat, read, rename and remove the items of the worker this many ranks further on (excludes -N)", ZeroMeans: "every worker works on its own items"},
	{Key: "only", Name: "only", Help: "run only these operations: create, stat, find, read, rename, remove (as mdtest -C, -T, -E, -r; comma list)"},
	{Key: "tree", Name: "tree", Help: "name of a tree that phases of a run share (suites: one phase creates, later ones stat, read, remove)"},
	{Key: "find", Name: "find", Help: "add the find operation after the file creates: walk the trees and match names and sizes, as IO500's find"},
	{Key: "find_name", Name: "find-name", Help: "find's name pattern (* and ? match)"},
	{Key: "find_size", Name: "find-size", Help: "the file size find matches (default: --write-bytes)", ZeroMeans: "empty files"},
	{Key: "find_in", Name: "find-in", Help: "where find walks: tree (the phase's trees, default) or data (the run's whole data directory, every phase's files, as IO500's find)"},
	{Key: "force", Name: "force", Help: "allow a tree of more than 100,000 directories"},
	{Key: "seed", Name: "seed", Help: "seed of the random order (default: from the clock)", NonZero: true, LeftOut: "a seed from the clock"},
}
