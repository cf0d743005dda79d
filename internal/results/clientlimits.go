package results

import (
	"strings"

	"github.com/storbench/storbench/internal/model"
)

// HostVerdict is one limit of its own that a host reached during a
// phase (model.Verdict), with the host.
type HostVerdict struct {
	Host string `json:"host"`
	Kind string `json:"kind"`
	Text string `json:"text"`
}

func hostVerdicts(h *model.HostResult) []HostVerdict {
	if h.Client == nil {
		return nil
	}
	var out []HostVerdict
	for _, v := range h.Client.Verdicts {
		out = append(out, HostVerdict{Host: h.Host, Kind: v.Kind, Text: v.Text})
	}
	return out
}

// ClientLimitLines says, one line per host that reached a limit of its
// own, whose limit the phase's figure may be; nil when none did. A
// starved host is left to StarvedText, which says why and what it means
// for the figures: the report says it once.
func (p *PhaseSummary) ClientLimitLines() []string {
	var lines []string
	var host string
	var texts []string
	flush := func() {
		if len(texts) > 0 {
			lines = append(lines, host+": "+strings.Join(texts, "; "))
		}
	}
	for _, v := range p.ClientLimits {
		if v.Kind == model.VerdictStarved && len(p.ClientStarved) > 0 {
			continue
		}
		if v.Host != host {
			flush()
			host, texts = v.Host, nil
		}
		texts = append(texts, v.Text)
	}
	flush()
	return lines
}

// Sampled says whether the phase's hosts sampled their own CPU, network
// and disks (storbench before the samples did not): with none sampled, no
// verdict is no word on the client.
func (p *PhaseSummary) Sampled() bool {
	for _, h := range p.PerHost {
		if h.Client != nil && h.Client.Sampled != nil {
			return true
		}
	}
	return false
}
