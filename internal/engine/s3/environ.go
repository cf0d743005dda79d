package s3

import "github.com/storbench/storbench/internal/engine"

// The key variables the s3 engine declares (Info.Environment). The
// command line reads every declared variable once and hands them to the
// engine (applyEnvironment, awsenv.go), which reads them with the AWS
// shared files; the keys it settles on reach its phases in Env.Secrets
// under the STORBENCH_* names, whichever source gave them, and an agent's
// launcher carries them there.
const (
	envAccessKey    = "STORBENCH_ACCESS_KEY"
	envSecretKey    = "STORBENCH_SECRET_KEY"
	envSessionToken = "STORBENCH_SESSION_TOKEN"
)

// variables lists the variables, the AWS tools' included, that fill
// what a phase's settings leave unset (the endpoint, region, TLS, the
// request path, the CA bundle) and the keys, secret; HOME is where the
// AWS shared files are.
var variables = []engine.Var{
	{Name: envHome},
	{Name: envS3Host},
	{Name: envAccessKey, Secret: true},
	{Name: envSecretKey, Secret: true},
	{Name: envSessionToken, Secret: true},
	{Name: envS3Region},
	{Name: envS3TLS},
	{Name: envS3SDK},
	{Name: envAWSAccessKey, Secret: true},
	{Name: envAWSSecretKey, Secret: true},
	{Name: envAWSSessionToken, Secret: true},
	{Name: envAWSProfile},
	{Name: envAWSCredentialsFile},
	{Name: envAWSConfigFile},
	{Name: envAWSRegion},
	{Name: envAWSDefaultRegion},
	{Name: envAWSEndpointS3},
	{Name: envAWSEndpoint},
	{Name: envAWSIgnoreEndpoints},
	{Name: envAWSCABundle},
}

// keysOf are the keys an agent was given, for phases that carry none.
func keysOf(s engine.Secrets) engine.Credentials {
	return engine.Credentials{AccessKey: s.Get(envAccessKey), SecretKey: s.Get(envSecretKey), SessionToken: s.Get(envSessionToken)}
}
