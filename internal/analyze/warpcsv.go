package analyze

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"time"
)

// warp's benchmark data (`warp ... --benchdata`, `--full`) is a
// tab-separated text file, zstd-compressed, one request a line under a
// header line naming the columns (idx, thread, op, client_id, n_objects,
// bytes, endpoint, file, error, start, first_byte, end, duration_ns, cat in
// warp v1.4), times in RFC 3339 with nanoseconds, fields holding a tab, a
// quote or a newline quoted as in CSV, and warp's command line at the end
// as '#' comment lines. The column facts are read from warp's
// documentation and files; no warp code is used.

// Columns read from a warp file, by header name. The first five must be
// there; the others are used when present.
const (
	wOp = iota
	wThread
	wStart
	wEnd
	wBytes
	wClient
	wEndpoint
	wError
	wFirstByte
	nWarpCols
)

var warpCols = [nWarpCols]string{"op", "thread", "start", "end", "bytes", "client_id", "endpoint", "error", "first_byte"}

const warpRequired = wBytes + 1

// warpHeader is where each column is in a warp file (-1: absent) and how
// many columns a line has.
type warpHeader struct {
	idx [nWarpCols]int
	n   int
}

// warpHeaderIndex reads a header line; false when it is not warp's.
func warpHeaderIndex(h []byte) (warpHeader, bool) {
	var wh warpHeader
	for k := range wh.idx {
		wh.idx[k] = -1
	}
	names := bytes.Split(h, []byte{'\t'})
	for i, n := range names {
		for k, want := range warpCols {
			if string(n) == want {
				wh.idx[k] = i
			}
		}
	}
	for k := range warpRequired {
		if wh.idx[k] < 0 {
			return wh, false
		}
	}
	wh.n = len(names)
	return wh, true
}

// maxErrorKind bounds an error text kept as a kind: warp's texts can name
// the object and the endpoint, so they are cut to stay a kind.
const maxErrorKind = 120

// warpScanner parses the request lines of a warp file into benchLines. It
// allocates nothing per line: fields point into the scanner's buffer, or
// into buf for lines with quoted fields; client ids are interned once.
type warpScanner struct {
	h       warpHeader
	fields  [][]byte
	rec     []byte // a record that spans lines (a quoted newline)
	buf     []byte // unquoted fields
	clients map[string]int64
	times   timeParser
}

func newWarpScanner(h warpHeader) *warpScanner {
	return &warpScanner{h: h, fields: make([][]byte, h.n), clients: map[string]int64{}}
}

// scan reads every request line after the header; line is the number of
// the last line read, for messages.
func (w *warpScanner) scan(sc *bufio.Scanner, line *uint64, fn func(*benchLine)) (uint64, error) {
	var l benchLine
	var n uint64
	for sc.Scan() {
		*line++
		b := sc.Bytes()
		if len(b) == 0 || b[0] == '#' {
			continue // warp's command line, written after the requests
		}
		first := *line
		var k int
		if bytes.IndexByte(b, '"') < 0 {
			k = splitTabs(b, w.fields)
		} else {
			w.rec = append(w.rec[:0], b...)
			for bytes.Count(w.rec, []byte{'"'})%2 != 0 {
				if !sc.Scan() {
					return n, fmt.Errorf("line %d: a quoted field is never closed", first)
				}
				*line++
				w.rec = append(append(w.rec, '\n'), sc.Bytes()...)
			}
			var err error
			if k, err = w.splitQuoted(w.rec); err != nil {
				return n, fmt.Errorf("line %d: %v", first, err)
			}
		}
		if k != w.h.n {
			return n, fmt.Errorf("line %d: %d fields, the header has %d", first, k, w.h.n)
		}
		if err := w.parse(&l); err != nil {
			return n, fmt.Errorf("line %d: %v", first, err)
		}
		fn(&l)
		n++
	}
	return n, nil
}

// parse fills l from the current fields.
func (w *warpScanner) parse(l *benchLine) error {
	f := func(col int) []byte {
		if i := w.h.idx[col]; i >= 0 {
			return w.fields[i]
		}
		return nil
	}
	l.op = f(wOp)
	if len(l.op) == 0 {
		return errors.New("no operation name")
	}
	thread, ok := atoi(f(wThread))
	if !ok || thread < 0 || thread > 1<<31 {
		return fmt.Errorf("thread %q is not a thread number", f(wThread))
	}
	start, ok := w.times.parse(f(wStart))
	if !ok {
		return fmt.Errorf("start %q is not an RFC 3339 time", f(wStart))
	}
	end, ok := w.times.parse(f(wEnd))
	if !ok {
		return fmt.Errorf("end %q is not an RFC 3339 time", f(wEnd))
	}
	if end < start {
		return fmt.Errorf("the request ends (%s) before it starts (%s)", f(wEnd), f(wStart))
	}
	nb, ok := atoi(f(wBytes))
	if !ok || nb < 0 {
		return fmt.Errorf("bytes %q is not a size", f(wBytes))
	}
	l.ttfb = 0
	if fb := f(wFirstByte); len(fb) > 0 {
		t, ok := w.times.parse(fb)
		if !ok {
			return fmt.Errorf("first_byte %q is not an RFC 3339 time", fb)
		}
		if t < start {
			return fmt.Errorf("the first byte (%s) came before the start (%s)", fb, f(wStart))
		}
		l.ttfb = t - start
	}
	// A worker is a thread of one warp client: thread numbers repeat
	// across the clients of a distributed run.
	cid := f(wClient)
	c, ok := w.clients[string(cid)]
	if !ok {
		c = int64(len(w.clients))
		w.clients[string(cid)] = c
	}
	l.worker = c<<32 | thread
	l.start, l.lat, l.n = start, end-start, nb
	l.endpoint = f(wEndpoint)
	l.errKind = f(wError)
	if len(l.errKind) > maxErrorKind {
		l.errKind = l.errKind[:maxErrorKind]
	}
	return nil
}

// splitQuoted splits a record with quoted fields (a quote doubled inside
// one stands for itself) into w.fields, unquoted into w.buf, and returns
// the number of fields.
func (w *warpScanner) splitQuoted(rec []byte) (int, error) {
	if cap(w.buf) < len(rec) {
		w.buf = make([]byte, 0, 2*len(rec))
	}
	// buf never grows past len(rec), so fields already set stay valid.
	buf := w.buf[:0]
	n := 0
	for i := 0; ; n++ {
		from := len(buf)
		if i < len(rec) && rec[i] == '"' {
			i++
			for {
				j := bytes.IndexByte(rec[i:], '"')
				if j < 0 {
					return 0, errors.New("a quoted field is never closed")
				}
				buf = append(buf, rec[i:i+j]...)
				i += j + 1
				if i < len(rec) && rec[i] == '"' {
					buf = append(buf, '"')
					i++
					continue
				}
				break
			}
			if i < len(rec) && rec[i] != '\t' {
				return 0, errors.New("text after a quoted field")
			}
		} else {
			j := bytes.IndexByte(rec[i:], '\t')
			if j < 0 {
				j = len(rec) - i
			}
			if bytes.IndexByte(rec[i:i+j], '"') >= 0 {
				return 0, errors.New("a quote inside a field that is not quoted")
			}
			buf = append(buf, rec[i:i+j]...)
			i += j
		}
		if n < len(w.fields) {
			w.fields[n] = buf[from:len(buf):len(buf)]
		}
		if i >= len(rec) {
			return n + 1, nil
		}
		i++ // the tab
	}
}

// parseRFC3339 reads an RFC 3339 time with up to nine fraction digits, as
// warp writes it ("2026-11-22T22:40:01.959836505Z", or with an offset such
// as "+01:00"), into Unix nanoseconds without allocating.
func parseRFC3339(b []byte) (int64, bool) {
	var p timeParser
	return p.parse(b)
}

// timeParser parses RFC 3339 times, remembering the date, hour and minute
// of the last one: the requests of a file share them, so most times need
// only their seconds read.
type timeParser struct {
	prefix [16]byte // "2006-01-02T15:04"
	minute int64    // its Unix seconds, before the offset
	valid  bool
}

// d2 reads two decimal digits; -1 when they are not.
func d2(b []byte) int64 {
	hi, lo := b[0]-'0', b[1]-'0'
	if hi > 9 || lo > 9 {
		return -1
	}
	return int64(hi)*10 + int64(lo)
}

func (p *timeParser) parse(b []byte) (int64, bool) {
	if len(b) < 20 || b[16] != ':' {
		return 0, false
	}
	if !p.valid || string(b[:16]) != string(p.prefix[:]) {
		m, ok := minuteOf(b[:16])
		if !ok {
			return 0, false
		}
		copy(p.prefix[:], b[:16])
		p.minute, p.valid = m, true
	}
	second := d2(b[17:19])
	if second < 0 || second > 59 {
		return 0, false
	}
	rest := b[19:]
	var nanos int64
	if rest[0] == '.' {
		i := 1
		for ; i < len(rest) && i <= 10; i++ {
			c := rest[i] - '0'
			if c > 9 {
				break
			}
			nanos = nanos*10 + int64(c)
		}
		if i == 1 || i > 10 {
			return 0, false
		}
		for range 10 - i {
			nanos *= 10
		}
		rest = rest[i:]
	}
	var off int64
	switch {
	case len(rest) == 1 && rest[0] == 'Z':
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		h, m := d2(rest[1:3]), d2(rest[4:6])
		if h < 0 || h > 23 || m < 0 || m > 59 {
			return 0, false
		}
		off = h*3600 + m*60
		if rest[0] == '-' {
			off = -off
		}
	default:
		return 0, false
	}
	return (p.minute+second-off)*1e9 + nanos, true
}

// minuteOf reads "2006-01-02T15:04" into Unix seconds.
func minuteOf(b []byte) (int64, bool) {
	if b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' {
		return 0, false
	}
	cent, yy := d2(b[0:2]), d2(b[2:4])
	year, month, day := cent*100+yy, d2(b[5:7]), d2(b[8:10])
	hour, minute := d2(b[11:13]), d2(b[14:16])
	if cent < 0 || yy < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) ||
		hour < 0 || hour > 23 || minute < 0 || minute > 59 {
		return 0, false
	}
	return daysFromCivil(year, month, day)*86400 + hour*3600 + minute*60, true
}

func daysIn(year, month int64) int64 {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the number of days from 1970-01-01 to a date of the
// proleptic Gregorian calendar (years counted from March, so the leap day
// ends the year; 146097 days make 400 years).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400 // y >= -1 here: years are four digits
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12 // March is 0
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// warpCut is the window over which warp analyze (v1.4, reading a file)
// averages an operation: whole seconds of the clock, from the second in
// which its first request started to the one in which its last ended,
// without the first two and the last two. ok is false when fewer than two
// seconds remain; warp then prints "too few samples" and no average.
func warpCut(first, last int64) (start, end int64, ok bool) {
	const s = int64(time.Second)
	start = floorDiv(first, s)*s + 2*s
	end = (floorDiv(last, s)+1)*s - 2*s
	return start, end, end-start >= 2*s
}
