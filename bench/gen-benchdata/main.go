// Command gen-benchdata writes a synthetic s3 benchdata file (the s3
// engine's zstd TSV, or with -format warp the tab-separated CSV warp
// writes) of a given number of requests, for measuring `storbench analyze`
// on big inputs: 64 workers on 4 endpoints running a mixed
// GET/STAT/PUT/DELETE load, log-normal latencies, rare errors.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/storbench/storbench/internal/engine/s3"
)

func main() {
	n := flag.Int("n", 10_000_000, "requests")
	out := flag.String("o", "bench.tsv.zst", "output file")
	workers := flag.Int("workers", 64, "workers")
	format := flag.String("format", "storbench", "storbench (s3 benchdata TSV) or warp (warp's CSV)")
	flag.Parse()
	if *format != "storbench" && *format != "warp" {
		fmt.Fprintf(os.Stderr, "gen-benchdata: -format %q: want storbench or warp\n", *format)
		os.Exit(2)
	}
	if err := run(*n, *workers, *out, *format == "warp"); err != nil {
		fmt.Fprintln(os.Stderr, "gen-benchdata:", err)
		os.Exit(1)
	}
}

// warpHeader is the header line of warp v1.4's files.
const warpHeader = "idx\tthread\top\tclient_id\tn_objects\tbytes\tendpoint\tfile\terror\tstart\tfirst_byte\tend\tduration_ns\tcat"

// appendWarpLine appends one request as warp writes it.
func appendWarpLine(b []byte, idx int, op string, worker int, ep string, startNs, ttfb, lat, size int64, errText string) []byte {
	ts := func(b []byte, ns int64) []byte { return time.Unix(0, ns).UTC().AppendFormat(b, time.RFC3339Nano) }
	b = strconv.AppendInt(b, int64(idx), 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(worker), 10)
	b = append(b, '\t')
	b = append(b, op...)
	b = append(b, "\tgen1\t1\t"...)
	b = strconv.AppendInt(b, size, 10)
	b = append(b, "\thttp://"...)
	b = append(b, ep...)
	b = append(b, "\tobj/"...)
	b = strconv.AppendInt(b, int64(idx%10000), 10)
	b = append(b, '\t')
	b = append(b, errText...)
	b = append(b, '\t')
	b = ts(b, startNs)
	b = append(b, '\t')
	if ttfb > 0 {
		b = ts(b, startNs+ttfb)
	}
	b = append(b, '\t')
	b = ts(b, startNs+lat)
	b = append(b, '\t')
	b = strconv.AppendInt(b, lat, 10)
	return append(b, "\t0\n"...)
}

func run(n, workers int, path string, warp bool) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	zw, err := zstd.NewWriter(bw, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	eps := []string{"s3-1:9000", "s3-2:9000", "s3-3:9000", "s3-4:9000"}
	ops := []string{"GET", "GET", "GET", "STAT", "STAT", "PUT", "DELETE"}
	const base = int64(1_800_000_000e9)
	clock := make([]int64, workers)
	for i := range clock {
		clock[i] = base + int64(rng.IntN(1e6))
	}
	line := make([]byte, 0, 256)
	header := s3.BenchDataHeader
	if warp {
		header = warpHeader
	}
	if _, err := zw.Write([]byte(header + "\n")); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		w := i % workers
		op := ops[rng.IntN(len(ops))]
		lat := int64(math.Exp(rng.NormFloat64()*0.6) * 1.5e6)
		ttfb, size := int64(0), int64(0)
		switch op {
		case "GET":
			ttfb, size = lat*8/10, 65536
		case "PUT":
			size = 65536
		}
		errKind := ""
		if rng.IntN(100_000) == 0 {
			errKind, size = "timeout", 0
		}
		if warp {
			line = appendWarpLine(line[:0], i, op, w, eps[w%len(eps)], clock[w], ttfb, lat, size, errKind)
		} else {
			line = s3.AppendBenchLine(line[:0], op, w, eps[w%len(eps)], clock[w], ttfb, lat, size, errKind)
		}
		if _, err := zw.Write(line); err != nil {
			return err
		}
		clock[w] += lat + 20_000
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return bw.Flush()
}
