// Package specs reads a spec file: what a vendor claims of a device or a
// system (sequential read bandwidth, random read IOPS at a block size),
// so that measured figures can be shown as a share of their claim.
//
// The format (YAML):
//
//	name: Example NVMe 3.84TB          # what the claims are of
//	claims:
//	  seq_read_bw: 6GB/s               # bandwidth: B/s, kB/s, MB/s, GB/s, TB/s, KiB/s ... TiB/s
//	  seq_write_bw: 3.5GB/s
//	  rand_read_iops: {bs: 4k, value: 1M}   # a rate: a number, k, M or G (1000s)
//	  md_create: {figure: md/create/rate, value: 50k}
//
// A claim named KIND_OP_MEASURE (KIND seq or rand, OP read or write,
// MEASURE bw or iops) applies to the totals of operation OP in every
// phase whose name holds KIND (seq-read, rand-read-4k), and with bs: to
// those whose name also holds the block size as written (4k). Any claim
// may instead name its figure (PHASE/OP/FIGURE, * allowed in PHASE and
// OP, FIGURE bw or rate).
package specs

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/storbench/storbench/internal/catalog"
	"github.com/storbench/storbench/internal/infile"
	"github.com/storbench/storbench/internal/units"
)

// Spec is a device's or a system's claims.
type Spec struct {
	Name   string
	Claims []Claim
}

// Claim is one claimed figure.
type Claim struct {
	// Key is the claim's name in the file (seq_read_bw).
	Key string
	// Value is the claim in the figure's unit: B/s for bw, ops/s for rate.
	Value float64
	// Text is the claim as the file writes it (6GB/s).
	Text string
	// BS is the block size as written, when the claim gives one.
	BS string
	// Figure is what the claim applies to: Phase and Op are patterns.
	Figure catalog.FigureRef
	// kind, when set, is held by the phase's name (seq, rand).
	kind string
}

// Share is a measured figure against its claim.
type Share struct {
	Claim string  `json:"claim"`
	Phase string  `json:"phase"`
	Op    string  `json:"op"`
	Value float64 `json:"value"`
	// Claimed is the claim, in the figure's unit (B/s, ops/s).
	Claimed float64 `json:"claimed"`
	// Pct is the value as a percentage of the claim.
	Pct float64 `json:"pct"`
}

type file struct {
	Name   string               `yaml:"name"`
	Claims map[string]yaml.Node `yaml:"claims"`
}

type claimMap struct {
	Value  yaml.Node `yaml:"value"`
	BS     string    `yaml:"bs"`
	Figure string    `yaml:"figure"`
}

var keyPattern = regexp.MustCompile(`^(seq|rand)_(read|write)_(bw|iops)$`)

// Read reads and checks a spec file; every error is one line naming the
// file and what to fix.
func Read(name string) (*Spec, error) {
	b, err := infile.Read("--spec", name, infile.TextLimit)
	if infile.IsRefusal(err) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("--spec: %v", err)
	}
	s, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("--spec %s: %v", name, err)
	}
	return s, nil
}

// Parse reads a spec from YAML text.
func Parse(b []byte) (*Spec, error) {
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("not a spec (%s): write name: and claims: (seq_read_bw: 6GB/s)", oneLine(err))
	}
	if len(f.Claims) == 0 {
		return nil, errors.New("no claims: write claims: with at least one (seq_read_bw: 6GB/s)")
	}
	s := &Spec{Name: f.Name}
	for key, node := range f.Claims {
		c, err := parseClaim(key, &node)
		if err != nil {
			return nil, fmt.Errorf("claim %s: %v", key, err)
		}
		s.Claims = append(s.Claims, c)
	}
	// Claims in the file's map order are random: keep a fixed order.
	sortClaims(s.Claims)
	return s, nil
}

func parseClaim(key string, node *yaml.Node) (Claim, error) {
	c := Claim{Key: key}
	valNode := node
	if node.Kind == yaml.MappingNode {
		var m claimMap
		for i := 0; i+1 < len(node.Content); i += 2 {
			if k := node.Content[i].Value; k != "value" && k != "bs" && k != "figure" {
				return c, fmt.Errorf("unknown field %q: a claim has value, bs and figure", k)
			}
		}
		if err := node.Decode(&m); err != nil {
			return c, fmt.Errorf("%s: write {value: 1M, bs: 4k} or {value: 50k, figure: md/create/rate}", oneLine(err))
		}
		if m.Value.Kind == 0 {
			return c, errors.New("no value: write {value: 1M, bs: 4k}")
		}
		valNode, c.BS = &m.Value, m.BS
		if m.Figure != "" {
			f, err := catalog.ParseFigure(m.Figure)
			if err != nil {
				return c, err
			}
			if f.Name != catalog.FigBW && f.Name != catalog.FigRate {
				return c, fmt.Errorf("figure %s: a claim is of bw or rate", m.Figure)
			}
			c.Figure = f
		}
	} else if node.Kind != yaml.ScalarNode {
		return c, errors.New("write a value (6GB/s) or {value: 1M, bs: 4k}")
	}
	if c.BS != "" {
		if _, err := units.ParseSize(c.BS); err != nil {
			return c, fmt.Errorf("bs: %v", err)
		}
	}
	if c.Figure.Name == "" {
		m := keyPattern.FindStringSubmatch(key)
		if m == nil {
			return c, errors.New("unknown claim: name it seq|rand_read|write_bw|iops (seq_read_bw, rand_read_iops), or give figure: PHASE/OP/FIGURE")
		}
		c.kind = m[1]
		c.Figure = catalog.FigureRef{Phase: "*", Op: m[2], Name: catalog.FigBW}
		if m[3] == "iops" {
			c.Figure.Name = catalog.FigRate
		}
	}
	v, err := parseValue(valNode.Value, c.Figure.Name == catalog.FigBW)
	if err != nil {
		return c, err
	}
	c.Value, c.Text = v, strings.TrimSpace(valNode.Value)
	return c, nil
}

// parseValue reads a claim's value: a bandwidth with its unit (6GB/s),
// or a rate (1M, 800k, 1000000, "1M IOPS"), as internal/units reads them.
func parseValue(s string, bw bool) (float64, error) {
	if strings.HasPrefix(strings.TrimSpace(s), "-") {
		return 0, fmt.Errorf("value %q: a claim is more than 0", s)
	}
	parse := units.ParseRate
	if bw {
		parse = units.ParseBandwidth
	}
	v, err := parse(s)
	if err != nil {
		return 0, fmt.Errorf("value %q: %v", s, cutQuoted(err.Error()))
	}
	if !(v > 0) {
		return 0, fmt.Errorf("value %q: a claim is more than 0", s)
	}
	return v, nil
}

// cutQuoted drops the value units' message starts with ('bandwidth
// "6GB": ...'), which parseValue says once itself.
func cutQuoted(msg string) string {
	if _, rest, ok := strings.Cut(msg, `": `); ok {
		return rest
	}
	return msg
}

// Match returns the claim that applies to figure of operation op of phase
// (totals), or nil.
func (s *Spec) Match(phase, op, figure string) *Claim {
	for i := range s.Claims {
		c := &s.Claims[i]
		if c.Figure.Name != figure || !glob(c.Figure.Op, op) || !glob(c.Figure.Phase, phase) {
			continue
		}
		low := strings.ToLower(phase)
		if c.kind != "" && !strings.Contains(low, c.kind) {
			continue
		}
		if c.BS != "" && !hasWord(low, strings.ToLower(c.BS)) {
			continue
		}
		return c
	}
	return nil
}

// Shares returns every total figure of figs that a claim applies to, as
// a share of its claim, in the figures' order.
func (s *Spec) Shares(figs []catalog.Figure) []Share {
	var out []Share
	for _, f := range figs {
		if f.Host != "" {
			continue
		}
		if c := s.Match(f.Phase, f.Op, f.Name); c != nil {
			out = append(out, Share{Claim: c.Key, Phase: f.Phase, Op: f.Op, Value: f.Value, Claimed: c.Value, Pct: 100 * f.Value / c.Value})
		}
	}
	return out
}

// hasWord reports whether name holds w between non-alphanumerics: the
// block size 4k is in rand-read-4k, not in rand-read-64k.
func hasWord(name, w string) bool {
	words := strings.FieldsFunc(name, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') })
	return slices.Contains(words, w)
}

// ShareText says a total figure as a share of its claim: "50% of
// seq_read_bw 6GB/s"; "" when no claim applies.
func (s *Spec) ShareText(phase, op, figure string, value float64) string {
	c := s.Match(phase, op, figure)
	if c == nil {
		return ""
	}
	return PctText(100*value/c.Value) + " of " + c.Key + " " + c.Text
}

// PctText writes a share in percent: two significant digits below 10%,
// whole percents above.
func PctText(p float64) string {
	if p < 10 {
		return strconv.FormatFloat(p, 'g', 2, 64) + "%"
	}
	return strconv.FormatFloat(p, 'f', 0, 64) + "%"
}

// glob matches s against a pattern whose * matches anything, '/' too (a
// phase's name may hold '/').
func glob(pattern, s string) bool {
	re := "^" + strings.ReplaceAll(regexp.QuoteMeta(pattern), `\*`, ".*") + "$"
	ok, _ := regexp.MatchString(re, s)
	return ok
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "yaml: ", "")), " ")
}

func sortClaims(cs []Claim) {
	slices.SortFunc(cs, func(a, b Claim) int { return strings.Compare(a.Key, b.Key) })
}
