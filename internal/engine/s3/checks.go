package s3

import (
	"fmt"
	"math"
	"net/netip"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/units"
)

// checkPlan refuses, before anything connects, what S3 or the run would
// refuse only once the phase started: a bucket name S3 does not allow,
// parts below S3's minimum, a rate that is not a number, an --autoterm.dur
// the phase cannot reach.
func checkPlan(c *config) error {
	if err := checkBucketName(c.Bucket, c.ListExisting); err != nil {
		return err
	}
	if math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0) {
		return fmt.Errorf("s3: --rate %g: want a number of requests per second", c.Rate)
	}
	if c.multipart() && c.Parts > 1 && c.PartSize < MinPartSize {
		return fmt.Errorf("s3: --part.size %s: S3 refuses parts under 5 MiB (all but the last); give at least 5MiB, or --parts 1",
			units.Bytes(float64(c.PartSize)))
	}
	if c.AutoTerm && time.Duration(c.AutoTermDur) >= c.duration {
		return fmt.Errorf("s3: --autoterm.dur %s is not shorter than --duration %s: throughput could never be stable that long; give a shorter --autoterm.dur or a longer --duration",
			time.Duration(c.AutoTermDur), c.duration)
	}
	return nil
}

// checkBucketName applies S3's bucket naming rules: 3 to 63 characters,
// lowercase letters, digits, '.' and '-', a letter or digit at both ends,
// no "..", not an IP address, none of the reserved prefixes and suffixes.
// With --list-existing the bucket exists already and may be a legacy one
// (capitals and '_' were allowed in us-east-1): only what no server takes
// is refused.
func checkBucketName(b string, existing bool) error {
	bad := func(why string) error {
		return fmt.Errorf("s3: --bucket %q: %s (S3's bucket naming rules)", b, why)
	}
	if len(b) < 3 || len(b) > 63 {
		return bad("want 3 to 63 characters")
	}
	for _, r := range b {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-'
		if existing {
			ok = ok || r >= 'A' && r <= 'Z' || r == '_'
		}
		if !ok {
			return bad("want lowercase letters, digits, '.' and '-' only")
		}
	}
	if alnum := func(c byte) bool { return c != '.' && c != '-' && c != '_' }; !alnum(b[0]) || !alnum(b[len(b)-1]) {
		return bad("want a letter or digit at the start and at the end")
	}
	if strings.Contains(b, "..") {
		return bad("two '.' in a row")
	}
	if _, err := netip.ParseAddr(b); err == nil {
		return bad("an IP address is not a bucket name")
	}
	if existing {
		return nil
	}
	for _, p := range []string{"xn--", "sthree-", "amzn-s3-demo-"} {
		if strings.HasPrefix(b, p) {
			return bad("names starting with " + p + " are reserved")
		}
	}
	for _, s := range []string{"-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"} {
		if strings.HasSuffix(b, s) {
			return bad("names ending with " + s + " are reserved")
		}
	}
	return nil
}
