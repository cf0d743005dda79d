package metrics_test

import "os"

// The storbench processes and in-process runs of these tests index
// nothing: no test writes into the catalog of the user who runs it
// (tests of the catalog give their own with --catalog).
func init() { os.Setenv("STORBENCH_CATALOG", "off") }
