package fio

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// storbench's own variables. Every fio process gets them in its
// environment, but storbench fills them into the job file itself before
// checking it and before fio reads it, so that what PathRules check is what
// fio runs, whatever fio would make of the environment.
const (
	// VarHostIndex is this host's place among the hosts of the phase,
	// from 0; under read_from: neighbour, the neighbour's, whose part
	// this host reads.
	VarHostIndex = "STORBENCH_HOST_INDEX"
	// VarHostCount is how many hosts run the phase.
	VarHostCount = "STORBENCH_HOST_COUNT"
	// VarSharedDir is the directory of a shared phase's files in the
	// run's shared area: fio's directory= in that phase.
	VarSharedDir = "STORBENCH_SHARED_DIR"
)

// Vars are the values of storbench's variables in one phase on one host.
type Vars struct {
	Index, Count int
	// SharedDir is the shared phase's data directory, absolute; empty in
	// a phase that is not shared, where the variable is refused.
	SharedDir string
}

// placeholderVars are what a job file is checked with before the phase
// reaches a host (validation, fio --parse-only, the plan's duration): the
// first of one host. Paths do not depend on the numbers, so the check of
// every path still holds on the hosts, which check again with their own.
func placeholderVars(shared bool) Vars {
	v := Vars{Count: 1}
	if shared {
		v.SharedDir = "/" + VarSharedDir
	}
	return v
}

// timeOptions are fio's options whose values are times (fio 3.33,
// options.c: is_time): fio reads an arithmetic expression in them in
// microseconds, a plain number in their own unit, so a computed value
// would change meaning.
var timeOptions = map[string]bool{
	"startdelay": true, "runtime": true, "timeout": true, "ramp_time": true,
	"latency_target": true, "latency_window": true, "max_latency": true,
	"steadystate_duration": true, "ss_dur": true, "steadystate_ramp_time": true, "ss_ramp": true,
	"thinktime": true, "thinktime_spin": true, "thinktime_iotime": true,
}

// Fill fills storbench's variables into the values of every option, as
// text fio then reads without knowing there was a variable:
//
//   - ${STORBENCH_HOST_INDEX} and ${STORBENCH_HOST_COUNT} become numbers.
//     A parenthesised arithmetic expression holding them, written as fio's
//     HOWTO writes one (offset=(${STORBENCH_HOST_INDEX}*2*47008)), is
//     computed by storbench and replaced by its value: fio builds without
//     its expression parser (Debian's fio 3.33) refuse such a value, and
//     computed here it reads the same on every fio. Whole numbers and the
//     operators + - * / % ^ only, and not in a time option (fio reads an
//     expression there in microseconds).
//   - ${STORBENCH_SHARED_DIR}, in a shared phase only, becomes "." in
//     filename= and filename_format= (fio puts directory=, which is that
//     directory, in front of every file name, absolute ones included) and
//     the absolute directory in options that name no path. In any other
//     option that names a path it is refused: those stay in the job's own
//     directory.
//   - Any other ${STORBENCH_...} is refused, so that no storbench setting
//     (an agent's S3 keys) reaches fio through a job file. Other ${VAR}s
//     are left for PathRules.
func (jf *JobFile) Fill(v Vars) error {
	for _, s := range jf.Sections {
		for i := range s.Options {
			o := &s.Options[i]
			if !o.HasValue || !strings.Contains(o.Value, "${") || strings.Contains(o.Key, "${") {
				continue
			}
			val, err := fillValue(o.Key, o.Value, v)
			if err != nil {
				return fmt.Errorf("%s=%s: %v", o.Key, o.Value, err)
			}
			o.Value = val
		}
	}
	return nil
}

// fillValue fills the variables into the value of option key.
func fillValue(key, val string, v Vars) (string, error) {
	var b strings.Builder
	for i := 0; i < len(val); {
		switch {
		case val[i] == '(':
			end := closing(val, i)
			if end < 0 {
				if hasOurVar(val[i:]) {
					return "", errors.New("unbalanced parentheses around storbench's variable")
				}
				b.WriteString(val[i:])
				return b.String(), nil
			}
			group := val[i : end+1]
			i = end + 1
			if !hasOurVar(group) {
				b.WriteString(group)
				continue
			}
			if timeOptions[strings.ToLower(key)] {
				return "", fmt.Errorf("fio reads an expression in a time option in microseconds; write the time of %s without storbench's variables in parentheses", key)
			}
			expr, err := fillNumbers(group, v)
			if err != nil {
				return "", err
			}
			n, err := evalArith(expr)
			if err != nil {
				return "", fmt.Errorf("%s is not an expression storbench can compute (whole numbers, + - * / %% ^ and parentheses): %v", group, err)
			}
			b.WriteString(strconv.FormatInt(n, 10))
		case strings.HasPrefix(val[i:], "${"):
			end := strings.IndexByte(val[i:], '}')
			if end < 0 {
				b.WriteString(val[i:])
				return b.String(), nil
			}
			name := val[i+2 : i+end]
			i += end + 1
			s, err := fillVar(key, name, v)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		default:
			b.WriteByte(val[i])
			i++
		}
	}
	return b.String(), nil
}

// closing returns the index of the ')' that closes the '(' at i, or -1.
func closing(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// hasOurVar reports a ${STORBENCH_...} in s, in any case.
func hasOurVar(s string) bool { return strings.Contains(strings.ToUpper(s), "${STORBENCH_") }

// fillNumbers replaces the host index and count in an expression; no
// other variable may be in one.
func fillNumbers(expr string, v Vars) (string, error) {
	var b strings.Builder
	for i := 0; i < len(expr); {
		if !strings.HasPrefix(expr[i:], "${") {
			b.WriteByte(expr[i])
			i++
			continue
		}
		end := strings.IndexByte(expr[i:], '}')
		if end < 0 {
			return "", errors.New("unclosed ${")
		}
		name := expr[i+2 : i+end]
		i += end + 1
		switch name {
		case VarHostIndex:
			b.WriteString(strconv.Itoa(v.Index))
		case VarHostCount:
			b.WriteString(strconv.Itoa(v.Count))
		case VarSharedDir:
			return "", fmt.Errorf("${%s} is a path, not a number: it cannot be part of an expression", name)
		default:
			if err := knownVar(name); err != nil {
				return "", err
			}
			return "", fmt.Errorf("${%s} is filled in by fio, after storbench computes the expression: leave it out of the parentheses", name)
		}
	}
	return b.String(), nil
}

// fillVar returns the text of variable name in the value of option key.
// Variables that are not storbench's stay as they are.
func fillVar(key, name string, v Vars) (string, error) {
	switch name {
	case VarHostIndex:
		return strconv.Itoa(v.Index), nil
	case VarHostCount:
		return strconv.Itoa(v.Count), nil
	case VarSharedDir:
		if v.SharedDir == "" {
			return "", fmt.Errorf("${%s} is the run's shared area, which only a phase with shared: true works in", VarSharedDir)
		}
		r := ruleOf[strings.ToLower(key)]
		switch {
		case r == nil || r.Rule != Confine:
			return v.SharedDir, nil
		case r.inData:
			return ".", nil
		}
		return "", fmt.Errorf("${%s} may name files only in filename= and filename_format=; %s stays in the job's own directory", VarSharedDir, key)
	}
	if err := knownVar(name); err != nil {
		return "", err
	}
	return "${" + name + "}", nil
}

// knownVar refuses a ${STORBENCH_...} that is none of storbench's three.
func knownVar(name string) error {
	if strings.HasPrefix(strings.ToUpper(name), "STORBENCH_") {
		return fmt.Errorf("${%s} is no variable storbench fills in; it has %s, %s and %s", name, VarHostIndex, VarHostCount, VarSharedDir)
	}
	return nil
}

// evalArith computes an integer expression: whole numbers, blanks,
// parentheses, unary + and -, and + - * / % ^ (power) with the usual
// precedence, ^ binding right. Overflow and division by zero are errors.
func evalArith(s string) (int64, error) {
	p := &arith{s: s}
	n, err := p.sum()
	if err != nil {
		return 0, err
	}
	p.blanks()
	if p.i != len(p.s) {
		return 0, fmt.Errorf("unexpected %q", p.s[p.i:])
	}
	return n, nil
}

type arith struct {
	s     string
	i     int
	depth int
}

var errOverflow = errors.New("the value overflows 64 bits")

func (p *arith) blanks() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *arith) peek() byte {
	p.blanks()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *arith) sum() (int64, error) {
	a, err := p.product()
	for err == nil {
		op := p.peek()
		if op != '+' && op != '-' {
			break
		}
		p.i++
		var b int64
		if b, err = p.product(); err != nil {
			break
		}
		if op == '-' {
			if b == math.MinInt64 {
				return 0, errOverflow
			}
			b = -b
		}
		if (b > 0 && a > math.MaxInt64-b) || (b < 0 && a < math.MinInt64-b) {
			return 0, errOverflow
		}
		a += b
	}
	return a, err
}

func (p *arith) product() (int64, error) {
	a, err := p.power()
	for err == nil {
		op := p.peek()
		if op != '*' && op != '/' && op != '%' {
			break
		}
		p.i++
		var b int64
		if b, err = p.power(); err != nil {
			break
		}
		switch op {
		case '*':
			if a != 0 && b != 0 && (a*b/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64)) {
				return 0, errOverflow
			}
			a *= b
		default:
			if b == 0 {
				return 0, errors.New("division by zero")
			}
			if a == math.MinInt64 && b == -1 {
				return 0, errOverflow
			}
			if op == '/' {
				a /= b
			} else {
				a %= b
			}
		}
	}
	return a, err
}

func (p *arith) power() (int64, error) {
	base, err := p.unary()
	if err != nil || p.peek() != '^' {
		return base, err
	}
	p.i++
	exp, err := p.power()
	if err != nil {
		return 0, err
	}
	if exp < 0 {
		return 0, errors.New("a negative power is not a whole number")
	}
	switch base {
	case 0, 1:
		if exp == 0 {
			return 1, nil
		}
		return base, nil
	case -1:
		if exp%2 == 0 {
			return 1, nil
		}
		return -1, nil
	}
	// |base| >= 2: at most 63 rounds before it overflows.
	r := int64(1)
	for ; exp > 0; exp-- {
		if r*base/base != r {
			return 0, errOverflow
		}
		r *= base
	}
	return r, nil
}

func (p *arith) unary() (int64, error) {
	switch p.peek() {
	case '-':
		p.i++
		n, err := p.unary()
		if err == nil && n == math.MinInt64 {
			return 0, errOverflow
		}
		return -n, err
	case '+':
		p.i++
		return p.unary()
	case '(':
		p.i++
		if p.depth++; p.depth > 64 {
			return 0, errors.New("parentheses nested too deep")
		}
		n, err := p.sum()
		p.depth--
		if err != nil {
			return 0, err
		}
		if p.peek() != ')' {
			return 0, errors.New("a '(' is not closed")
		}
		p.i++
		return n, nil
	}
	start := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	if start == p.i {
		if p.i == len(p.s) {
			return 0, errors.New("the expression ends early")
		}
		return 0, fmt.Errorf("unexpected %q", p.s[p.i:])
	}
	n, err := strconv.ParseInt(p.s[start:p.i], 10, 64)
	if err != nil {
		return 0, errOverflow
	}
	return n, nil
}
