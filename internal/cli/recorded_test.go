package cli

import "testing"

// What run.json keeps of `storbench fio`'s options, and the report shows
// as its settings, is what was given: without --numjobs the job files'
// own numjobs ran, and the report said "numjobs 0".
func TestFioRecordsOnlyTheNumjobsGiven(t *testing.T) {
	t.Parallel()
	if m := (FioOptions{}).recorded("d"); m["numjobs"] != nil {
		t.Errorf("no --numjobs given, run.json keeps numjobs %v", m["numjobs"])
	}
	if m := (FioOptions{Numjobs: 4}).recorded("d"); m["numjobs"] != 4 {
		t.Errorf("--numjobs 4 given, run.json keeps numjobs %v", m["numjobs"])
	}
}
