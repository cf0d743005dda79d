package s3

import "fmt"

// resolveMultipart checks and defaults --parts, --part.size and
// --part.concurrent for the multipart ops, whose objects are that many
// parts of that size; split out of resolve to keep it short.
func resolveMultipart(c *config) error {
	if c.multipart() {
		if c.DisableMultipart {
			return fmt.Errorf("s3: --disable-multipart: %s is multipart uploads", c.Op)
		}
		// storbench's multipart has its own defaults; multipart-put has
		// warp's.
		parts, conc := 20, 4
		if c.Op == "multipart-put" {
			parts, conc = 100, 20
		}
		if c.Parts == 0 {
			c.Parts = parts
		}
		if c.PartSize == 0 {
			c.PartSize = MinPartSize
		}
		if c.PartConcurrency == 0 {
			c.PartConcurrency = conc
		}
		if c.Parts < 1 || c.Parts > MaxParts {
			return fmt.Errorf("s3: --parts %d: want 1 to %d", c.Parts, MaxParts)
		}
		if c.PartSize < 1 || c.PartSize > MaxPartSize {
			return fmt.Errorf("s3: --part.size %d: want 1 byte to 5 GiB", c.PartSize)
		}
		if c.PartConcurrency < 1 || c.PartConcurrency > c.Parts {
			return fmt.Errorf("s3: --part.concurrent %d: want 1 to --parts (%d)", c.PartConcurrency, c.Parts)
		}
		c.ObjSize = c.PartSize * Size(c.Parts)
		c.sizes = &sizeDist{kind: distFixed, lo: int64(c.PartSize), hi: int64(c.PartSize)}
	}
	return nil
}
