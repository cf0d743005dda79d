package results

import (
	"encoding/json"
	"slices"

	"github.com/storbench/storbench/internal/model"
)

// clientSummary is what summary.json keeps of a host's client load: all
// but its series, which stay in the host's result.json, summed up in a
// few figures (nil without a load).
func clientSummary(c *model.ClientLoad) *model.ClientSummary {
	if c == nil {
		return nil
	}
	s := c.ClientSummary
	s.Sampled = summarizeSamples(c.Samples)
	return &s
}

// summarizeSamples is each of h's series' median second and highest;
// nil when nothing was sampled.
func summarizeSamples(h *model.HostSamples) *model.SamplesSummary {
	if h == nil || len(h.TS) == 0 {
		return nil
	}
	s := &model.SamplesSummary{Seconds: len(h.TS), Cores: h.Cores, QuotaCPUs: h.QuotaCPUs,
		UserPct: spread(h.UserPct), SystemPct: spread(h.SystemPct), IowaitPct: spread(h.IowaitPct),
		StealPct: spread(h.StealPct), RunQueue: spread(h.RunQueue),
		UsedPct: spreadOf(h.UsedPct), ThrottledPct: spreadOf(h.ThrottledPct),
		MemUsedBytes: spreadOf(h.MemUsedBytes), CacheBytes: spreadOf(h.CacheBytes),
		BusiestThread: h.BusiestThread,
	}
	var busiest []float64
	for i := range h.TS {
		top, any := 0.0, false
		for _, c := range h.CoreBusyPct {
			if i < len(c) {
				top, any = max(top, c[i]), true
			}
		}
		if any {
			busiest = append(busiest, top)
		}
	}
	s.BusiestCorePct = spreadOf(busiest)
	for _, n := range h.Net {
		s.Net = append(s.Net, model.NetSummary{Name: n.Name, LinkBytesPerS: n.LinkBytesPerS,
			RxBytesPerS: spread(n.RxBytesPerS), TxBytesPerS: spread(n.TxBytesPerS)})
	}
	for _, d := range h.Disks {
		s.Disks = append(s.Disks, model.DiskSummary{Name: d.Name, BusyPct: spread(d.BusyPct)})
	}
	return s
}

// spread is v's median (the lower of the two middle values: the second
// at or above which half the seconds were, as the verdicts take it) and
// its highest; zero for no values.
func spread(v []float64) model.Spread {
	if len(v) == 0 {
		return model.Spread{}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return model.Spread{Median: s[(len(s)-1)/2], Max: s[len(s)-1]}
}

// spreadOf is spread, nil for a series not taken.
func spreadOf(v []float64) *model.Spread {
	if len(v) == 0 {
		return nil
	}
	s := spread(v)
	return &s
}

// upgradeV4 reads the hosts' client samples a version 4 summary.json (b)
// kept, series and all, into s as version 5 keeps them: in a few figures.
func upgradeV4(b []byte, s *Summary) error {
	var v4 struct {
		Phases []struct {
			PerHost []struct {
				Client *struct {
					Samples *model.HostSamples `json:"samples"`
				} `json:"client"`
			} `json:"per_host"`
		} `json:"phases"`
	}
	if err := json.Unmarshal(b, &v4); err != nil {
		return err
	}
	for i, p := range v4.Phases {
		for j, h := range p.PerHost {
			if h.Client == nil || i >= len(s.Phases) || j >= len(s.Phases[i].PerHost) || s.Phases[i].PerHost[j].Client == nil {
				continue
			}
			s.Phases[i].PerHost[j].Client.Sampled = summarizeSamples(h.Client.Samples)
		}
	}
	return nil
}
