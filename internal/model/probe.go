package model

// Probe is what a probe of a service found: which of storbench's
// features work there, each tried with one small request and undone
// (storbench s3 probe, and --probe before a run). run.json keeps it in
// the run's fingerprint, and the catalog indexes each feature's result.
type Probe struct {
	// Endpoint is the service probed (host:port).
	Endpoint string `json:"endpoint"`
	// Server is the name the service's answers gave (their Server
	// header: "Ceph Object Gateway (pacific)", "VERSITYGW"), empty when
	// they gave none.
	Server string `json:"server,omitempty"`
	// Features are the features tried, in the order tried.
	Features []Feature `json:"features"`
}

// Feature is one feature as a probe found it.
type Feature struct {
	// Name is the feature, as the storage engineer says it ("versioning",
	// "checksum CRC32C in a trailer").
	Name string `json:"name"`
	// Result is FeatureWorks, FeatureRefused, FeatureIgnored,
	// FeatureFails or FeatureUntried.
	Result string `json:"result"`
	// Detail is what was seen: the service's error code, what read back.
	Detail string `json:"detail,omitempty"`
}

// A feature's results.
const (
	// FeatureWorks: the request was taken and what it asked for read back.
	FeatureWorks = "works"
	// FeatureRefused: the service answered the request with an error.
	FeatureRefused = "refused"
	// FeatureIgnored: the service took the request without doing what it
	// asked (an upload's encryption, class or checksum not kept).
	FeatureIgnored = "ignored"
	// FeatureFails: the service answered, wrongly (a listing without the
	// object just written).
	FeatureFails = "fails"
	// FeatureUntried: the feature could not be tried here (SSE-C over
	// plain HTTP); Detail says why.
	FeatureUntried = "not tried"
)

// Works says the probe found feature name working (false when it was not
// tried).
func (p *Probe) Works(name string) bool {
	for _, f := range p.Features {
		if f.Name == name {
			return f.Result == FeatureWorks
		}
	}
	return false
}
