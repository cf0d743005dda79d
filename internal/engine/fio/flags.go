package fio

import "github.com/storbench/storbench/internal/engine"

// flags are how `storbench fio` shows the settings of a suite's fio entry
// (Info.Flags), named as wekatester names them; fio's own options (--rw,
// --bs, ...) are the command's, as fio spells them.
var flags = []engine.Flag{
	{Key: "dir", Name: "directory", Short: "d", Default: "storbench-data", Help: "target directory; files go under DIR/storbench/<run id>/ and are removed afterwards"},
	{Key: "workload", Name: "workload", Short: "w", Default: "default", Help: "built-in workload (default: the four corners; mixed: 70/30 read/write), a directory of *.job files, or one job file"},
	{Key: "runtime", Name: "runtime", Help: "run each job this long, replacing the job files' runtime; as fio reads it, a bare number is seconds (60, 30s, 5m)", NonZero: true, LeftOut: "the job files' own runtime"},
	{Key: "size", Name: "size", Help: "file size per job (e.g. 256M, 2G), replacing the job files' filesize", NonZero: true, LeftOut: "the job files' own size"},
	{Key: "numjobs", Name: "numjobs", Help: "jobs per multi-job section, replacing numjobs (single-job latency sections keep 1)", NonZero: true, LeftOut: "the job files' own numjobs"},
	{Key: "stonewall", Name: "stonewall", Help: "write until this deadline (e.g. 300s), then every job of every host on to the most blocks any job wrote, as IOR -D with stoneWallingWearOut=1 (IO500); one sequential write job (rw=write or write:GAP)", NonZero: true, LeftOut: "no stonewall"},
}
