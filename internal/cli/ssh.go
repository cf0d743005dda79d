package cli

import (
	"context"
)

func (o AgentsOptions) sshAgents(ctx context.Context, st *State, entries []string) (*agentSet, error) {
	return nil, usageErr("--ssh: not yet")
}
