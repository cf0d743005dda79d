package units

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Size is a byte count that JSON (and so a suite) gives as a number (4096)
// or as a string a person writes ("4k", "64KiB"), binary multipliers as fio.
type Size int64

// UnmarshalJSON accepts a number or a size string.
func (s *Size) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
		n, err := ParseSize(str)
		if err != nil {
			return err
		}
		*s = Size(n)
		return nil
	}
	var n int64
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("size %s: want a number of bytes or a string such as \"4k\"", b)
	}
	*s = Size(n)
	return nil
}

// Duration is a time that JSON gives as a string with its unit ("30s",
// "5m"); a bare number, 30 or "30", is refused as ParseDuration refuses it.
type Duration time.Duration

// UnmarshalJSON accepts "30s", "5m", and 0.
func (d *Duration) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	str := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
	}
	v, err := ParseDuration(str)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the duration as a string ("30s").
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}
