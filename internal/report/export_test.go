package report

// For the tests of package report_test, which run storbench itself (it
// imports this package): the Chromium checks of the report.
var (
	ChromiumBinary  = chromiumBinary
	CheckInChromium = checkInChromium
	ArtifactDir     = artifactDir
)
