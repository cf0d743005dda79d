package s3

import (
	"os"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/secret"
)

// CheckPlanMemory refuses, as Prepare does on each host before the bucket
// is touched, a phase whose objects would not fit in this machine's
// memory: --dry-run refuses with the same line. A phase that does not
// resolve is left to the run's own checks.
func CheckPlanMemory(p engine.Phase) error {
	ps, err := phaseParams(p)
	if err != nil {
		return nil
	}
	// Keys change nothing of the estimate; a dry run may have none yet.
	stand := engine.Credentials{AccessKey: secret.New("dry-run"), SecretKey: secret.New("dry-run")}
	c, err := resolve(ps, stand)
	if err != nil {
		return nil
	}
	// A key's length counts: the prefix as this host's phase will have it
	// (a run id is always as long as this one).
	host, _ := os.Hostname()
	return checkMemory(c, "storbench/20060102T150405Z-0000/"+sanitize(host)+"/"+sanitize(p.Name)+"/")
}
