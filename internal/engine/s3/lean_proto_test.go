package s3

// A measurement, not a feature: how much CPU a GET costs when the request
// is written by hand on a raw connection (cached SigV4 signing key, no
// net/http goroutines, no minio-go request building). It tells how much of
// the CPU per request is minio-go plus net/http, and how much is left.

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/s3test"
)

func hmacSHA(key, data []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write(data)
	return h.Sum(nil)
}

func TestLeanGetPrototype(t *testing.T) {
	if os.Getenv("STORBENCH_CPU") == "" {
		t.Skip("set STORBENCH_CPU=1")
	}
	srv := s3test.StartT(t, s3test.Options{})
	p := baseParams(srv, "get")
	p["obj_size"], p["objects"], p["concurrent"] = "4KiB", 1000, 16
	pr, err := Engine{}.Prepare(context.Background(), engine.Env{Host: "h", RunID: "lean"}, phaseOf(t, "g", p))
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Cleanup(context.Background())
	ph := pr.(*phase)
	keys := ph.keys
	region, service := "us-east-1", "s3"
	var stop atomic.Bool
	var total atomic.Int64
	var wg sync.WaitGroup
	u0, s0 := cpuNow()
	t0 := time.Now()
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			conn, err := net.Dial("tcp", srv.Endpoint)
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			br := bufio.NewReaderSize(conn, 64<<10)
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			buf := make([]byte, 64<<10)
			req := make([]byte, 0, 1024)
			canon := make([]byte, 0, 512)
			sts := make([]byte, 0, 256)
			var day string
			var skey []byte
			mac := hmac.New(sha256.New, []byte{0})
			var sumb [32]byte
			var hexb [64]byte
			n := 0
			for !stop.Load() {
				now := time.Now().UTC()
				amzDate := now.Format("20060102T150405Z")
				if d := amzDate[:8]; d != day {
					day = d
					k := hmacSHA([]byte("AWS4"+s3test.SecretKey), []byte(day))
					k = hmacSHA(k, []byte(region))
					k = hmacSHA(k, []byte(service))
					skey = hmacSHA(k, []byte("aws4_request"))
					mac = hmac.New(sha256.New, skey)
				}
				path := "/" + ph.c.Bucket + "/" + keys[rng.IntN(len(keys))]
				canon = append(canon[:0], "GET\n"...)
				canon = append(canon, path...)
				canon = append(canon, "\n\nhost:"...)
				canon = append(canon, srv.Endpoint...)
				canon = append(canon, "\nx-amz-content-sha256:UNSIGNED-PAYLOAD\nx-amz-date:"...)
				canon = append(canon, amzDate...)
				canon = append(canon, "\n\nhost;x-amz-content-sha256;x-amz-date\nUNSIGNED-PAYLOAD"...)
				sumb = sha256.Sum256(canon)
				hex.Encode(hexb[:], sumb[:])
				scope := day + "/" + region + "/s3/aws4_request"
				sts = append(sts[:0], "AWS4-HMAC-SHA256\n"...)
				sts = append(sts, amzDate...)
				sts = append(sts, '\n')
				sts = append(sts, scope...)
				sts = append(sts, '\n')
				sts = append(sts, hexb[:]...)
				mac.Reset()
				mac.Write(sts)
				sig := mac.Sum(sumb[:0])
				hex.Encode(hexb[:], sig)
				req = append(req[:0], "GET "...)
				req = append(req, path...)
				req = append(req, " HTTP/1.1\r\nHost: "...)
				req = append(req, srv.Endpoint...)
				req = append(req, "\r\nX-Amz-Content-Sha256: UNSIGNED-PAYLOAD\r\nX-Amz-Date: "...)
				req = append(req, amzDate...)
				req = append(req, "\r\nAuthorization: AWS4-HMAC-SHA256 Credential="...)
				req = append(req, s3test.AccessKey...)
				req = append(req, '/')
				req = append(req, scope...)
				req = append(req, ", SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature="...)
				req = append(req, hexb[:]...)
				req = append(req, "\r\n\r\n"...)
				if _, err := conn.Write(req); err != nil {
					t.Error(err)
					return
				}
				status, err := br.ReadSlice('\n')
				if err != nil || len(status) < 12 || string(status[9:12]) != "200" {
					t.Errorf("status %q %v", status, err)
					return
				}
				clen := -1
				for {
					l, err := br.ReadSlice('\n')
					if err != nil {
						t.Error(err)
						return
					}
					if len(l) <= 2 {
						break
					}
					if len(l) > 16 && (l[0] == 'C' || l[0] == 'c') && string(l[1:15]) == "ontent-Length:" {
						clen, _ = strconv.Atoi(string(l[16 : len(l)-2]))
					}
				}
				if _, err := io.ReadFull(br, buf[:clen]); err != nil {
					t.Error(err)
					return
				}
				n++
			}
			total.Add(int64(n))
		}(w)
	}
	time.Sleep(10 * time.Second)
	stop.Store(true)
	wg.Wait()
	el := time.Since(t0)
	u1, s1 := cpuNow()
	nn := float64(total.Load())
	t.Logf("lean GET 4KiB: %.0f obj/s, %.1f us CPU per request (user %.1f, sys %.1f)", nn/el.Seconds(),
		float64(u1-u0+s1-s0)/1e3/nn, float64(u1-u0)/1e3/nn, float64(s1-s0)/1e3/nn)
}
