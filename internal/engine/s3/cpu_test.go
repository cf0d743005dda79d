package s3

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/s3test"
)

func cpuNow() (user, sys time.Duration) {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// TestCPUPerRequest measures this process's CPU per request for the issue's
// two reference workloads. It runs only with STORBENCH_CPU=1 (it takes
// time); bench/s3-cpu.sh measures the same through the CLI.
func TestCPUPerRequest(t *testing.T) {
	if os.Getenv("STORBENCH_CPU") == "" {
		t.Skip("set STORBENCH_CPU=1 to measure CPU per request")
	}
	dur := "10s"
	if d := os.Getenv("STORBENCH_CPU_DURATION"); d != "" {
		dur = d
	}
	// STORBENCH_CPU_TLS=1: over HTTPS, against a self-signed certificate.
	srv := s3test.StartT(t, s3test.Options{TLS: os.Getenv("STORBENCH_CPU_TLS") != ""})
	for _, tc := range []struct {
		op, size string
	}{{"get", "4KiB"}, {"put", "64KiB"}} {
		if only := os.Getenv("STORBENCH_CPU_OP"); only != "" && only != tc.op {
			continue
		}
		p := baseParams(srv, tc.op)
		p["obj_size"], p["objects"], p["concurrent"], p["duration"] = tc.size, 1000, 16, dur
		p["sdk"] = os.Getenv("STORBENCH_S3_SDK") != ""
		pr, err := Engine{}.Prepare(context.Background(), engine.Env{Host: "h", RunID: "cpu"}, phaseOf(t, tc.op, p))
		if err != nil {
			t.Fatal(err)
		}
		u0, s0 := cpuNow()
		res, err := pr.Run(context.Background(), time.Now(), nil)
		u1, s1 := cpuNow()
		if err != nil {
			t.Fatal(err)
		}
		_ = pr.Cleanup(context.Background())
		u2, s2 := cpuNow()
		o := res.Ops[0]
		n := float64(o.Ops)
		t.Logf("%s %s (%s): %.0f obj/s, %.1f us CPU per request (user %.1f, sys %.1f), %d errors; cleanup %.1f us per request", tc.op, tc.size,
			res.Meta["s3_client"], n/o.Seconds(), float64(u1-u0+s1-s0)/1e3/n, float64(u1-u0)/1e3/n, float64(s1-s0)/1e3/n, o.Errors,
			float64(u2-u1+s2-s1)/1e3/n)
	}
}
