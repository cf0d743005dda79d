package s3

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/infile"
	"github.com/storbench/storbench/internal/secret"
)

// The s3 engine applies its own environment (Info.ApplyEnvironment): the
// command line reads the variables the engine declares once and hands
// them over; here they are read as the AWS tools read them, with the AWS
// shared files they stand in for (a profile's keys stand for
// AWS_ACCESS_KEY_ID and its pair, its endpoint_url for AWS_ENDPOINT_URL),
// found under HOME, which the engine declares too.

// The variables of storbench's own S3 settings.
const (
	envS3Host   = "STORBENCH_HOST"
	envS3Region = "STORBENCH_REGION"
	envS3TLS    = "STORBENCH_TLS"
	// envS3SDK=1 sends every request through minio-go (as --sdk).
	envS3SDK = "STORBENCH_S3_SDK"
	envHome  = "HOME"
)

// The AWS variables storbench reads, as the AWS CLI and SDKs name them.
const (
	envAWSAccessKey       = "AWS_ACCESS_KEY_ID"
	envAWSSecretKey       = "AWS_SECRET_ACCESS_KEY"
	envAWSSessionToken    = "AWS_SESSION_TOKEN"
	envAWSProfile         = "AWS_PROFILE"
	envAWSCredentialsFile = "AWS_SHARED_CREDENTIALS_FILE"
	envAWSConfigFile      = "AWS_CONFIG_FILE"
	envAWSRegion          = "AWS_REGION"
	envAWSDefaultRegion   = "AWS_DEFAULT_REGION"
	envAWSEndpointS3      = "AWS_ENDPOINT_URL_S3"
	envAWSEndpoint        = "AWS_ENDPOINT_URL"
	envAWSIgnoreEndpoints = "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"
	envAWSCABundle        = "AWS_CA_BUNDLE"
)

// missingKeys says what a user sets when a phase needs keys and the
// environment has none.
var missingKeys = fmt.Sprintf("set %s and %s (or %s and %s, or name an AWS profile: %s)",
	envAccessKey, envSecretKey, envAWSAccessKey, envAWSSecretKey, envAWSProfile)

// secretsFrom says where the keys come from, in the order the chain
// looks (Info.SecretsFrom).
var secretsFrom = fmt.Sprintf("%s/%s, %s/%s (with %s), or the AWS profile (%s, else default) in ~/.aws/credentials and ~/.aws/config",
	envAccessKey, envSecretKey, envAWSAccessKey, envAWSSecretKey, envAWSSessionToken, envAWSProfile)

// applyEnvironment is the engine's Info.ApplyEnvironment: it fills what
// settings leave unset (applyS3; nil settings: none), checks the CA bundle
// the environment gives, and settles the keys: settings' access_key and
// secret_key (a command's flags) completed from STORBENCH_*, else the
// chain's (keyChain), under the STORBENCH_* names, whichever source gave
// them, which is where Env.Secrets carries them to the engine.
func applyEnvironment(env engine.Environ, settings map[string]any) (engine.Applied, error) {
	e, err := readEnvironment(env.Get)
	if err != nil {
		return engine.Applied{}, err
	}
	applied := engine.Applied{Missing: missingKeys, Secrets: engine.Secrets{}}
	if settings != nil {
		e.applyS3(settings)
		if err := e.checkS3CA(settings); err != nil {
			return engine.Applied{}, err
		}
	}
	str := func(k string) string { s, _ := settings[k].(string); return s }
	keys, err := e.keys(str("access_key"), str("secret_key"))
	if err != nil {
		applied.SecretsErr = err
		return applied, nil
	}
	for n, v := range map[string]secret.String{envAccessKey: keys.AccessKey, envSecretKey: keys.SecretKey, envSessionToken: keys.SessionToken} {
		if !v.Empty() {
			applied.Secrets[n] = v
		}
	}
	return applied, nil
}

// environment is what the s3 engine takes from the environment, applied
// with one precedence everywhere: what a flag or a suite says first, then
// storbench's own variables (STORBENCH_*), then what the AWS tools would
// find (AWS_* variables, then the AWS profile in ~/.aws/credentials and
// ~/.aws/config), then the engine's default.
type environment struct {
	// S3Host is STORBENCH_HOST, else the host of AWS_ENDPOINT_URL_S3,
	// AWS_ENDPOINT_URL or the profile's endpoint_url ("" when none).
	S3Host string
	// hostTLS is the scheme of the AWS endpoint S3Host came from (https:
	// true), nil when S3Host came from STORBENCH_HOST or nowhere.
	hostTLS *bool
	// S3Region is STORBENCH_REGION, else AWS_REGION, AWS_DEFAULT_REGION or
	// the profile's region.
	S3Region string
	// S3TLS and S3SDK are STORBENCH_TLS and STORBENCH_S3_SDK (nil when
	// unset).
	S3TLS, S3SDK *bool
	// S3CA is AWS_CA_BUNDLE, else the profile's ca_bundle: the CA
	// certificates an HTTPS endpoint is checked against.
	S3CA string
	// s3CASource names where S3CA came from, for errors.
	s3CASource string
	// Keys are the environment's S3 keys, from the first source of the
	// chain that gives any (keyChain); keysErr says why the chain failed.
	Keys    engine.Credentials
	keysErr error
	// storbench are the STORBENCH_* keys alone, which flags complete.
	storbench engine.Credentials
}

// readEnvironment reads the engine's variables through getenv (the
// values the command line read, once).
func readEnvironment(getenv func(string) string) (environment, error) {
	e := environment{S3Host: getenv(envS3Host), S3Region: getenv(envS3Region)}
	for _, b := range []struct {
		name string
		dst  **bool
	}{{envS3TLS, &e.S3TLS}, {envS3SDK, &e.S3SDK}} {
		v := getenv(b.name)
		if v == "" {
			continue
		}
		on, err := strconv.ParseBool(v)
		if err != nil {
			return e, fmt.Errorf("%s=%q is not a boolean", b.name, v)
		}
		*b.dst = &on
	}
	prof, profErr := readProfile(getenv)
	e.storbench = storbenchKeys(getenv)
	e.Keys, e.keysErr = keyChain(getenv, prof)
	if profErr != nil {
		e.keysErr = profErr
	}

	if e.S3Region == "" {
		e.S3Region = firstOf(getenv(envAWSRegion), getenv(envAWSDefaultRegion), prof.get("region"))
	}
	e.S3CA, e.s3CASource = getenv(envAWSCABundle), envAWSCABundle
	if e.S3CA == "" {
		e.S3CA, e.s3CASource = prof.get("ca_bundle"), "ca_bundle of "+prof.confWhere()
	}
	if e.S3Host == "" && !strings.EqualFold(firstOf(getenv(envAWSIgnoreEndpoints), prof.get("ignore_configured_endpoint_urls")), "true") {
		for _, src := range []struct{ name, v string }{
			{envAWSEndpointS3, getenv(envAWSEndpointS3)},
			{envAWSEndpoint, getenv(envAWSEndpoint)},
			{"s3 endpoint_url of [services " + prof.servicesName() + "] in " + prof.confWhere(), prof.servicesEndpoint()},
			{"s3 endpoint_url nested in " + prof.confWhere(), prof.get("s3.endpoint_url")},
			{"endpoint_url of " + prof.confWhere(), prof.get("endpoint_url")},
		} {
			if src.v == "" {
				continue
			}
			host, tls, err := endpointURL(src.v)
			if err != nil {
				return e, fmt.Errorf("%s=%q: %v", src.name, src.v, err)
			}
			e.S3Host, e.hostTLS = host, &tls
			break
		}
	}
	return e, nil
}

// endpointURL reads an AWS endpoint URL, scheme://host[:port], into the
// host (with its port, if it gives one) and whether it is HTTPS.
func endpointURL(v string) (host string, tls bool, err error) {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false, fmt.Errorf("want http://host[:port] or https://host[:port]")
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil || u.Fragment != "" {
		return "", false, fmt.Errorf("want scheme://host[:port] without a path, query or user")
	}
	return u.Host, u.Scheme == "https", nil
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// applyS3 fills what an s3 phase's settings (a suite's s3 block, or the
// flags of storbench s3) leave unset from the environment: endpoint (and
// with an AWS endpoint URL its scheme as tls), region, TLS, the CA
// certificates and the request path. Keys never go into settings.
func (e environment) applyS3(settings map[string]any) {
	if _, set := settings["host"]; !set && e.S3Host != "" {
		settings["host"] = e.S3Host
		if _, set := settings["tls"]; !set && e.S3TLS == nil && e.hostTLS != nil {
			settings["tls"] = *e.hostTLS
		}
	}
	if _, set := settings["region"]; !set && e.S3Region != "" {
		settings["region"] = e.S3Region
	}
	for key, v := range map[string]*bool{"tls": e.S3TLS, "sdk": e.S3SDK} {
		if _, set := settings[key]; !set && v != nil {
			settings[key] = *v
		}
	}
	// A CA bundle from the environment counts only for HTTPS: the AWS
	// tools ignore it for plain endpoints, where --ca-cert is refused.
	// An explicit --insecure (or the suite's insecure: true) wins over
	// the environment's bundle: the user said not to check.
	if _, set := settings["ca_cert"]; !set && e.S3CA != "" && settings["tls"] == true && settings["insecure"] != true {
		settings["ca_cert"] = e.S3CA
	}
}

// checkS3CA refuses, naming where it came from, a CA bundle the
// environment gives that an HTTPS phase would use but cannot read:
// otherwise the error would blame --ca-cert, which the user never gave.
func (e environment) checkS3CA(settings map[string]any) error {
	if e.S3CA == "" || settings["ca_cert"] != e.S3CA {
		return nil
	}
	if _, err := os.Stat(e.S3CA); err != nil {
		return fmt.Errorf("%s=%s: %v (unset it, or give --ca-cert or --insecure)", e.s3CASource, e.S3CA, unwrapPathErr(err))
	}
	return nil
}

// unwrapPathErr drops the path an *fs.PathError repeats.
func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// keys are the run's S3 keys: --access-key and --secret-key, each
// completed from STORBENCH_ACCESS_KEY/STORBENCH_SECRET_KEY (with
// STORBENCH_SESSION_TOKEN); when neither flags nor STORBENCH_* give a key,
// the rest of the environment's chain (AWS_* variables, the AWS profile).
// A source that gives one key without the other is an error, not a reason
// to look further: the user meant that source.
func (e environment) keys(accessKey, secretKey string) (engine.Credentials, error) {
	if _, missing := e.keysErr.(*profileError); missing {
		// Even when flags give the keys: the user named a profile that is
		// not there, and may expect its region or endpoint.
		return engine.Credentials{}, e.keysErr
	}
	k := e.storbench
	if accessKey != "" {
		k.AccessKey = secret.New(accessKey)
	}
	if secretKey != "" {
		k.SecretKey = secret.New(secretKey)
	}
	if !k.AccessKey.Empty() || !k.SecretKey.Empty() {
		if !k.Complete() {
			return k, fmt.Errorf("an access key without a secret key, or the other way round: give both --access-key and --secret-key (or %s and %s)", envAccessKey, envSecretKey)
		}
		return k, nil
	}
	return e.Keys, e.keysErr
}

// storbenchKeys are the STORBENCH_* keys.
func storbenchKeys(getenv func(string) string) engine.Credentials {
	return engine.Credentials{AccessKey: secret.New(getenv(envAccessKey)), SecretKey: secret.New(getenv(envSecretKey)),
		SessionToken: secret.New(getenv(envSessionToken))}
}

// keySource is one source of keys in the chain: where the three values
// are read and under which names.
type keySource struct {
	what      string // names a file's section in errors; "" for variables
	get       func(string) string
	ak, sk, t string
}

// keyChain finds S3 keys as storbench and then the AWS tools do: the
// first source that gives any key wins, and must give both. The sources:
// STORBENCH_ACCESS_KEY/STORBENCH_SECRET_KEY/STORBENCH_SESSION_TOKEN,
// then AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN, then the
// profile (prof, when not nil: AWS_PROFILE or "default"). An agent's
// environment and its --credentials-file go through the same chain.
func keyChain(getenv func(string) string, prof *awsProfile) (engine.Credentials, error) {
	sources := []keySource{
		{"", getenv, envAccessKey, envSecretKey, envSessionToken},
		{"", getenv, envAWSAccessKey, envAWSSecretKey, envAWSSessionToken},
	}
	if prof != nil {
		sources = append(sources, keySource{prof.where(), prof.keyGetter(), "aws_access_key_id", "aws_secret_access_key", "aws_session_token"})
	}
	for _, s := range sources {
		k := engine.Credentials{AccessKey: secret.New(s.get(s.ak)), SecretKey: secret.New(s.get(s.sk)), SessionToken: secret.New(s.get(s.t))}
		if k.AccessKey.Empty() && k.SecretKey.Empty() {
			continue
		}
		if !k.Complete() {
			given, missing := s.ak, s.sk
			if k.AccessKey.Empty() {
				given, missing = s.sk, s.ak
			}
			if s.what != "" {
				return engine.Credentials{}, fmt.Errorf("%s has %s but no %s", s.what, given, missing)
			}
			return engine.Credentials{}, fmt.Errorf("%s is set but %s is not: set both", given, missing)
		}
		return k, nil
	}
	if prof != nil && prof.found && prof.named {
		if how := prof.keysElsewhere(); how != "" {
			return engine.Credentials{}, fmt.Errorf("%s gets its keys through %s, which storbench does not run: export them first (aws configure export-credentials --profile %s --format env)", prof.where(), how, prof.name)
		}
	}
	return engine.Credentials{}, nil
}

// awsProfile is one profile of the AWS shared files: its section of the
// credentials file (keys) and of the config file (region, endpoint_url,
// ca_bundle, and keys too, which the credentials file's override).
type awsProfile struct {
	name         string
	named        bool // named by AWS_PROFILE, not the default
	found        bool
	creds, conf  map[string]string
	credsFile    string
	confFile     string
	keysFromConf bool
	// services names the config file's [services NAME] section the
	// profile uses; servicesS3 is that section's S3 endpoint_url.
	services, servicesS3 string
}

// readProfile reads the profile AWS_PROFILE names (else "default") from
// AWS_SHARED_CREDENTIALS_FILE (else ~/.aws/credentials) and
// AWS_CONFIG_FILE (else ~/.aws/config), as the AWS CLI does: [name] in the
// credentials file, [profile name] (or [default]) in the config file.
// Missing files are no error; a named profile found in neither is.
func readProfile(getenv func(string) string) (*awsProfile, error) {
	p := &awsProfile{name: getenv(envAWSProfile)}
	p.named = p.name != ""
	if !p.named {
		p.name = "default"
	}
	home := getenv(envHome)
	path := func(env, def string) string {
		f := getenv(env)
		if f == "" && home != "" {
			f = filepath.Join(home, ".aws", def)
		}
		if strings.HasPrefix(f, "~/") && home != "" {
			f = filepath.Join(home, f[2:])
		}
		return f
	}
	p.credsFile, p.confFile = path(envAWSCredentialsFile, "credentials"), path(envAWSConfigFile, "config")
	var ini map[string]map[string]string
	read := func(file string, sections ...string) (map[string]string, error) {
		ini = nil
		if file == "" {
			return nil, nil
		}
		b, err := infile.Read("AWS shared file", file, infile.TextLimit)
		if os.IsNotExist(err) {
			return nil, nil
		}
		if infile.IsRefusal(err) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("AWS shared file: %v", err)
		}
		if !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
			return nil, fmt.Errorf("AWS shared file %s is not text: give the AWS CLI's credentials or config file ([profile] sections of key = value lines)", file)
		}
		ini = parseINI(string(b))
		for _, s := range sections {
			if sec, ok := ini[s]; ok {
				return sec, nil
			}
		}
		return nil, nil
	}
	var err error
	if p.creds, err = read(p.credsFile, p.name); err != nil {
		return nil, err
	}
	confSections := []string{"profile " + p.name}
	if p.name == "default" {
		confSections = []string{"default", "profile default"}
	}
	if p.conf, err = read(p.confFile, confSections...); err != nil {
		return nil, err
	}
	// "services = NAME" points at a [services NAME] section of the same
	// file, whose nested "s3 =" settings hold S3's own endpoint_url.
	if name := p.conf["services"]; name != "" {
		p.services = name
		p.servicesS3 = ini["services "+name]["s3.endpoint_url"]
	}
	p.found = p.creds != nil || p.conf != nil
	if p.named && !p.found {
		return nil, &profileError{fmt.Sprintf("%s=%s: no profile %q in %s or %s", envAWSProfile, p.name, p.name, orNone(p.credsFile), orNone(p.confFile))}
	}
	p.keysFromConf = p.creds["aws_access_key_id"] == "" && p.creds["aws_secret_access_key"] == ""
	return p, nil
}

// profileError is a profile named by AWS_PROFILE that is in neither file.
type profileError struct{ msg string }

func (e *profileError) Error() string { return e.msg }

func orNone(f string) string {
	if f == "" {
		return "(no file: HOME is not set)"
	}
	return f
}

// get returns a setting of the profile's config section.
func (p *awsProfile) get(key string) string {
	if p == nil {
		return ""
	}
	return p.conf[key]
}

// servicesName is the [services NAME] section the profile uses ("" for
// none).
func (p *awsProfile) servicesName() string {
	if p == nil {
		return ""
	}
	return p.services
}

// servicesEndpoint is S3's endpoint_url in the profile's services
// section, which the AWS SDKs prefer to the profile's own endpoint_url.
func (p *awsProfile) servicesEndpoint() string {
	if p == nil {
		return ""
	}
	return p.servicesS3
}

// confWhere names the profile and its config file, for errors about the
// settings found there.
func (p *awsProfile) confWhere() string {
	if p == nil {
		return "the AWS profile"
	}
	return fmt.Sprintf("AWS profile %q (%s)", p.name, orNone(p.confFile))
}

// keyGetter reads the profile's keys: from the credentials file's section
// when it holds any, else from the config file's.
func (p *awsProfile) keyGetter() func(string) string {
	sec := p.creds
	if p.keysFromConf {
		sec = p.conf
	}
	return func(k string) string { return sec[k] }
}

// where names the profile and the file its keys come from, for errors.
func (p *awsProfile) where() string {
	if p == nil {
		return "the AWS profile"
	}
	f := p.credsFile
	if p.keysFromConf {
		f = p.confFile
	}
	return fmt.Sprintf("AWS profile %q (%s)", p.name, orNone(f))
}

// keysElsewhere names how a profile without keys would get them (a role,
// SSO, a process), which only the AWS tools can do.
func (p *awsProfile) keysElsewhere() string {
	for _, k := range []string{"role_arn", "sso_session", "sso_start_url", "credential_process", "web_identity_token_file", "login_session"} {
		if p.conf[k] != "" || p.creds[k] != "" {
			return k
		}
	}
	return ""
}

// parseINI reads an AWS shared file: [section] lines, then "key = value"
// lines; '#' and ';' start comment lines; indented lines under a key with
// no value are its nested settings ("s3 =" then "  endpoint_url = URL"),
// kept as "s3.endpoint_url". Section names and keys are taken without
// surrounding blanks, keys in lower case.
func parseINI(data string) map[string]map[string]string {
	out := map[string]map[string]string{}
	var cur map[string]string
	parent := "" // the key with no value that indented lines belong to
	for _, line := range strings.Split(data, "\n") {
		line = strings.TrimRight(line, "\r")
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || trimmed[0] == '#' || trimmed[0] == ';':
			continue
		case line[0] == ' ' || line[0] == '\t':
			k, v, ok := strings.Cut(trimmed, "=")
			if ok && cur != nil && parent != "" {
				cur[parent+"."+strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
			}
		case trimmed[0] == '[' && strings.HasSuffix(trimmed, "]"):
			name := strings.Join(strings.Fields(trimmed[1:len(trimmed)-1]), " ")
			if out[name] == nil {
				out[name] = map[string]string{}
			}
			cur, parent = out[name], ""
		case cur != nil:
			k, v, ok := strings.Cut(trimmed, "=")
			if ok {
				k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
				cur[k], parent = v, ""
				if v == "" {
					parent = k
				}
			}
		}
	}
	return out
}
