package engine

import "github.com/storbench/storbench/internal/secret"

// Credentials are the keys an engine signs its requests with (S3). The
// agent that runs a phase gives them in Env: a local run's from the
// command line or the environment of the controller, a remote agent's from
// its own environment, credentials file or the controller that started it
// with ssh. They print redacted, so an Env or a plan printed by mistake
// shows no key.
type Credentials struct {
	AccessKey, SecretKey secret.String
	// SessionToken comes with temporary keys (AWS STS):
	// it is sent, signed, with every request. Empty for permanent keys.
	SessionToken secret.String
}

// Complete says both keys are given.
func (c Credentials) Complete() bool { return !c.AccessKey.Empty() && !c.SecretKey.Empty() }
