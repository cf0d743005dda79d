package secret

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// A secret never prints, whatever prints it: every fmt verb, inside a
// struct or an error, JSON and slog.
func TestSecretNeverPrints(t *testing.T) {
	const value = "SKsbVerySecret42"
	s := New(value)
	holder := struct {
		Name string
		Key  String
		Ptr  *String
	}{"k", s, &s}
	var out []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%10s", "%-20v"} {
		out = append(out, fmt.Sprintf(verb, s), fmt.Sprintf(verb, holder))
	}
	out = append(out, fmt.Sprint(s), fmt.Sprintln(&s), fmt.Errorf("auth with %v failed", s).Error(),
		errors.New(fmt.Sprint(holder)).Error())
	j, err := json.Marshal(holder)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, string(j))
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("run", "key", s, "holder", holder)
	out = append(out, logged.String())
	for _, o := range out {
		if strings.Contains(o, value) || strings.Contains(o, fmt.Sprintf("%x", value)) {
			t.Errorf("printed the secret: %s", o)
		}
	}
	if !strings.Contains(fmt.Sprint(s), Redacted) || !strings.Contains(string(j), Redacted) {
		t.Errorf("a set secret does not say it is there: %s %s", fmt.Sprint(s), j)
	}
	if s.Reveal() != value || New("").String() != "" || !New("").Empty() {
		t.Error("Reveal, or an empty secret, is wrong")
	}
}
