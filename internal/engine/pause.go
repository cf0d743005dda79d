package engine

import (
	"context"
	"time"
)

// Pauser is a prepared phase whose load can stop for a while and go on
// (a suite event's pause: one host's load stops, as when a client
// hangs): Pause returns when the load runs again, after d, or when ctx
// ends. The time paused stays in the phase's figures, as a stall would.
type Pauser interface {
	Pause(ctx context.Context, d time.Duration) error
}
