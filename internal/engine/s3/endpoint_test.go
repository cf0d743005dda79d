package s3

import (
	"encoding/json"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
)

// The endpoint an s3 phase tells the catalog is its first one, without a
// key pair written before it, with how it is spoken to.
func TestPlanEndpoint(t *testing.T) {
	for _, tc := range []struct {
		params map[string]any
		want   model.Endpoint
		ok     bool
	}{
		{map[string]any{"op": "get", "host": "AKfp:SKfp@10.0.0.1:9000,other:9000"}, model.Endpoint{Host: "10.0.0.1:9000"}, true},
		{map[string]any{"op": "get", "hosts": []string{"a:9000", "b:9000"}, "tls": true, "insecure": true}, model.Endpoint{Host: "a:9000", TLS: true, Insecure: true}, true},
		{map[string]any{"op": "get"}, model.Endpoint{}, false},
	} {
		b, _ := json.Marshal(tc.params)
		pl, err := Engine{}.Plan(engine.Phase{Name: "p", Engine: model.EngineS3, Params: b})
		if err != nil {
			t.Fatalf("%v: %v", tc.params, err)
		}
		if ep, ok := pl.Endpoint(); ep != tc.want || ok != tc.ok {
			t.Errorf("%v: endpoint %+v %v, want %+v %v", tc.params, ep, ok, tc.want, tc.ok)
		}
	}
}
