package report

import (
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
)

// A scale stopped at its first step (a limit crossed: no load kept it)
// has no knee and says why, in the text and summary.md, not that it did
// not finish; one the run left before it stopped says that.
func TestScaleWithoutKneeSaysWhy(t *testing.T) {
	rate, p99 := 2600.0, int64(12e6)
	pt := []results.ScalePoint{{Load: 1, Phase: "md workers=1", Op: "file-create", OpsPerS: &rate, P99Ns: &p99}}
	for _, tc := range []struct {
		name string
		sc   results.Scale
		want string
	}{
		{"first step crossed a limit", results.Scale{Group: "md", Param: "workers", Steps: pt, StopKind: model.ScaleLimit, Stop: "a limit was crossed: md workers=1/file-create/p99<2ms"},
			"scale md by workers: no knee (the first step crossed a limit: no load kept it)"},
		{"run ended first", results.Scale{Group: "md", Param: "workers", Steps: pt},
			"scale md by workers: no knee (the scale did not finish)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			s := &results.Summary{Scales: []results.Scale{tc.sc}}
			ScaleText(&b, s)
			if !strings.Contains(b.String(), tc.want) {
				t.Errorf("the text lacks %q:\n%s", tc.want, b.String())
			}
		})
	}
}
