package all

import (
	"slices"
	"testing"

	"github.com/storbench/storbench/internal/model"
)

// The list holds every engine a suite or command can name, under the name
// they use.
func TestEveryEngineListed(t *testing.T) {
	got := Engines().Names()
	want := []model.EngineName{model.EngineFio, model.EngineMD, model.EngineS3}
	if !slices.Equal(got, want) {
		t.Errorf("engines %v, want %v", got, want)
	}
	if _, err := Engines().Lookup("nfs"); err == nil || err.Error() != `unknown engine "nfs" (known: fio, md, s3)` {
		t.Errorf("unknown engine: %v", err)
	}
}
