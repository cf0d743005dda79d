package s3

import "testing"

// S3's bucket naming rules, checked before anything connects; a legacy
// name (capitals, '_') is only read with --list-existing.
func TestBucketNames(t *testing.T) {
	for _, c := range []struct {
		name     string
		existing bool
		ok       bool
	}{
		{"storbench", false, true},
		{"my.bucket-01", false, true},
		{"ab", false, false},
		{string(make([]byte, 64)), false, false},
		{"Bad_Bucket", false, false},
		{"Bad_Bucket", true, true},
		{"-start", false, false},
		{"end.", false, false},
		{"a..b", false, false},
		{"192.168.1.1", false, false},
		{"192.168.1.1", true, false},
		{"xn--bucket", false, false},
		{"bucket-s3alias", false, false},
	} {
		if err := checkBucketName(c.name, c.existing); (err == nil) != c.ok {
			t.Errorf("%q (existing %v): %v, want ok=%v", c.name, c.existing, err, c.ok)
		}
	}
}
