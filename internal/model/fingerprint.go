package model

// Fingerprint describes the system under test as it was when a run began,
// so runs can be found again by what they measured ("every run on xfs with
// noatime", "every run against MinIO"): run.json keeps it, and the catalog
// indexes it. Each field is what the controller could read; a field it
// could not read is empty, never guessed.
type Fingerprint struct {
	// Kernel is the controller's kernel release (uname -r).
	Kernel string `json:"kernel,omitempty"`
	// Targets are the target directories of file phases as this machine
	// sees them: file system, mount options, and the devices under them.
	Targets []TargetPrint `json:"targets,omitempty"`
	// S3Endpoint is the first S3 endpoint of the run's s3 phases
	// (host:port, never with credentials), and S3Server the Server header
	// it answered with ("MinIO", "VERSITYGW", "AmazonS3").
	S3Endpoint string `json:"s3_endpoint,omitempty"`
	S3Server   string `json:"s3_server,omitempty"`
	// Hosts is how many hosts ran the load (1 for a run on this machine).
	Hosts int `json:"hosts"`
	// Probe is what a probe of the S3 endpoint found before the run
	// (--probe): which features work there.
	Probe *Probe `json:"probe,omitempty"`
}

// Endpoint is the object service a phase talks to, as its engine says
// (engine.Plan.Endpoint): host:port, never with credentials, and how it
// is spoken to.
type Endpoint struct {
	Host string
	// TLS says it speaks HTTPS; Insecure that its certificate is not
	// checked.
	TLS, Insecure bool
}

// TargetPrint is one target directory's file system.
type TargetPrint struct {
	Dir    string `json:"dir"`
	FSType string `json:"fs_type"`
	// MountOptions are the mount's options and the file system's own
	// (mountinfo's per-mount and super options, comma-separated).
	MountOptions string `json:"mount_options,omitempty"`
	// Source is what is mounted (/dev/nvme0n1p1, server:/export).
	Source string `json:"source,omitempty"`
	// Devices are the models of the block devices under the mount, as
	// /sys tells them ("Samsung SSD 980 PRO 1TB"); empty for network and
	// memory file systems, or where /sys does not say.
	Devices []string `json:"devices,omitempty"`
}
