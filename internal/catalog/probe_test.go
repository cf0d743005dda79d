package catalog

import (
	"reflect"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
)

// A run made with --probe keeps what the probe found: the catalog lists
// each feature's result with the run, and s3_works=FEATURE finds the runs
// whose server had it working.
func TestCatalogKeepsTheProbe(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		c := open(t, b.create(t))
		root := t.TempDir()
		mk := func(i int, probe *model.Probe) string {
			f, err := results.Create(root, results.RunInfo{
				RunHead:     model.RunHead{RunID: "20260301T120000Z-p" + string(rune('0'+i)), Name: "s3-put", StartedAt: t0.Add(time.Duration(i) * time.Hour)},
				Versions:    results.Versions{Storbench: "v1.2.3"},
				Fingerprint: &model.Fingerprint{S3Endpoint: "s3:7480", Hosts: 1, Probe: probe},
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Finish(results.StatusCompleted, nil); err != nil {
				t.Fatal(err)
			}
			return f.Path
		}
		rgw := &model.Probe{Endpoint: "s3:7480", Features: []model.Feature{
			{Name: "versioning", Result: model.FeatureWorks},
			{Name: "checksum CRC32C in a trailer", Result: model.FeatureRefused, Detail: "XAmzContentSHA256Mismatch"},
		}}
		for i, p := range []*model.Probe{rgw, nil} {
			if _, err := c.Add(t.Context(), mk(i, p)); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct {
			term string
			want []string
		}{
			{"s3_works=versioning", []string{"20260301T120000Z-p0"}},
			{"s3_works=checksum CRC32C in a trailer", nil},
			{"s3_endpoint=s3:7480", []string{"20260301T120000Z-p0", "20260301T120000Z-p1"}},
		} {
			q, err := ParseQuery([]string{tc.term}, t0)
			if err != nil {
				t.Fatal(err)
			}
			runs, err := c.Runs(t.Context(), q)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, r := range runs {
				ids = append(ids, r.RunID)
				if want := map[string]string{"versioning": "works", "checksum CRC32C in a trailer": "refused"}; r.RunID == "20260301T120000Z-p0" && !reflect.DeepEqual(r.S3Features, want) {
					t.Errorf("%s: features %v, want %v", r.RunID, r.S3Features, want)
				}
				if r.RunID == "20260301T120000Z-p1" && r.S3Features != nil {
					t.Errorf("%s, run without a probe: features %v", r.RunID, r.S3Features)
				}
			}
			if !reflect.DeepEqual(ids, tc.want) {
				t.Errorf("%s: runs %v, want %v", tc.term, ids, tc.want)
			}
		}
	})
}
