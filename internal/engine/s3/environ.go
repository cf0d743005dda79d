package s3

import "github.com/storbench/storbench/internal/engine"

// The environment variables the s3 engine declares (Info.Environment). The
// command line reads them, with the AWS shared files, once; the keys it
// settles on reach the engine in Env.Secrets under the STORBENCH_* names,
// whichever source gave them, and an agent's launcher carries them there.
const (
	envAccessKey    = "STORBENCH_ACCESS_KEY"
	envSecretKey    = "STORBENCH_SECRET_KEY"
	envSessionToken = "STORBENCH_SESSION_TOKEN"
)

// environment lists the variables, the AWS tools' included, that fill
// what a phase's settings leave unset (the endpoint, region, TLS, the
// request path, the CA bundle) and the keys, secret.
var environment = []engine.Var{
	{Name: "STORBENCH_HOST"},
	{Name: envAccessKey, Secret: true},
	{Name: envSecretKey, Secret: true},
	{Name: envSessionToken, Secret: true},
	{Name: "STORBENCH_REGION"},
	{Name: "STORBENCH_TLS"},
	{Name: "STORBENCH_S3_SDK"},
	{Name: "AWS_ACCESS_KEY_ID", Secret: true},
	{Name: "AWS_SECRET_ACCESS_KEY", Secret: true},
	{Name: "AWS_SESSION_TOKEN", Secret: true},
	{Name: "AWS_PROFILE"},
	{Name: "AWS_SHARED_CREDENTIALS_FILE"},
	{Name: "AWS_CONFIG_FILE"},
	{Name: "AWS_REGION"},
	{Name: "AWS_DEFAULT_REGION"},
	{Name: "AWS_ENDPOINT_URL_S3"},
	{Name: "AWS_ENDPOINT_URL"},
	{Name: "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"},
	{Name: "AWS_CA_BUNDLE"},
}

// keysOf are the keys an agent was given, for phases that carry none.
func keysOf(s engine.Secrets) engine.Credentials {
	return engine.Credentials{AccessKey: s.Get(envAccessKey), SecretKey: s.Get(envSecretKey), SessionToken: s.Get(envSessionToken)}
}
