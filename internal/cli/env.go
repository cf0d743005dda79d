package cli

import (
	"strconv"

	"github.com/storbench/storbench/internal/engine"
	s3e "github.com/storbench/storbench/internal/engine/s3"
	"github.com/storbench/storbench/internal/secret"
)

// environment is everything storbench takes from its environment. It is
// read once, here, when a command first needs it, and applied with one
// precedence everywhere: what a flag or a suite says first, then the
// environment, then storbench's default. Nothing else reads the
// environment: the engines are given what they need (engine.Env), and an
// agent's own keys come from here too.
type environment struct {
	// S3Host and S3Region are STORBENCH_HOST and STORBENCH_REGION ("" when
	// unset).
	S3Host, S3Region string
	// S3TLS and S3SDK are STORBENCH_TLS and STORBENCH_S3_SDK (nil when
	// unset).
	S3TLS, S3SDK *bool
	// Keys are STORBENCH_ACCESS_KEY and STORBENCH_SECRET_KEY.
	Keys engine.Credentials
}

// environment returns the environment, read through Getenv on first use.
func (st *State) environment() (environment, error) {
	st.envOnce.Do(func() { st.env, st.envErr = readEnvironment(st.getenv) })
	return st.env, st.envErr
}

func readEnvironment(getenv func(string) string) (environment, error) {
	e := environment{S3Host: getenv(s3e.EnvHost), S3Region: getenv(s3e.EnvRegion), Keys: engine.Credentials{
		AccessKey: secret.New(getenv(s3e.EnvAccessKey)), SecretKey: secret.New(getenv(s3e.EnvSecretKey)),
	}}
	for _, b := range []struct {
		name string
		dst  **bool
	}{{s3e.EnvTLS, &e.S3TLS}, {s3e.EnvSDK, &e.S3SDK}} {
		v := getenv(b.name)
		if v == "" {
			continue
		}
		on, err := strconv.ParseBool(v)
		if err != nil {
			return e, usageErr("%s=%q is not a boolean", b.name, v)
		}
		*b.dst = &on
	}
	return e, nil
}

// applyS3 fills what an s3 phase's settings (a suite's s3 block, or the
// flags of storbench s3) leave unset from the environment: endpoint,
// region, TLS and the request path. Keys never go into settings.
func (e environment) applyS3(settings map[string]any) {
	for key, v := range map[string]string{"host": e.S3Host, "region": e.S3Region} {
		if _, set := settings[key]; !set && v != "" {
			settings[key] = v
		}
	}
	for key, v := range map[string]*bool{"tls": e.S3TLS, "sdk": e.S3SDK} {
		if _, set := settings[key]; !set && v != nil {
			settings[key] = *v
		}
	}
}

// keys are the run's S3 keys: each given flag's value, else the
// environment's.
func (e environment) keys(accessKey, secretKey string) engine.Credentials {
	k := e.Keys
	if accessKey != "" {
		k.AccessKey = secret.New(accessKey)
	}
	if secretKey != "" {
		k.SecretKey = secret.New(secretKey)
	}
	return k
}
