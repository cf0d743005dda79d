package exit

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// An error's exit code is the one given where it was made: marking it
// again (bad input found by a caller) or wrapping it keeps that code; a
// cancelled context is an interrupt; anything else is a failure.
func TestCodeOf(t *testing.T) {
	interrupted := InterruptedBeforeRun()
	for _, c := range []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, OK},
		{"plain error", errors.New("disk on fire"), Failed},
		{"bad input", Errorf(BadInput, "--size: give a size"), BadInput},
		{"bad input marked as failed again", With(Failed, Errorf(BadInput, "x")), BadInput},
		{"failure marked as bad input by a caller", With(BadInput, &Error{Code: Failed, Err: errors.New("x")}), Failed},
		{"wrapped", fmt.Errorf("merge: %w", interrupted), Interrupted},
		{"cancelled context", fmt.Errorf("phase: %w", context.Canceled), Interrupted},
		{"a code the user chose", &Error{Code: 7, Err: errors.New("slower")}, 7},
	} {
		if got := CodeOf(c.err); got != c.want {
			t.Errorf("%s: exit code %d, want %d", c.name, got, c.want)
		}
	}
	if With(BadInput, nil) != nil {
		t.Error("With(BadInput, nil) is not nil")
	}
	if interrupted.Error() != "interrupted before anything ran" {
		t.Errorf("interrupted before running says %q", interrupted)
	}
}
