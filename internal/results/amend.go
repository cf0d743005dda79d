package results

// AmendPhase changes, with fn, the summary of the last phase called name
// that was added, and rewrites summary.json and the files made from it:
// what ended after the phase was written (the removal of its files in
// the background) joins it. It returns false when no phase has that name.
func (f *Folder) AmendPhase(name string, fn func(*PhaseSummary)) (bool, error) {
	f.mu.Lock()
	at := -1
	for i := len(f.sum.Phases) - 1; i >= 0; i-- {
		if f.sum.Phases[i].Name == name {
			at = i
			break
		}
	}
	if at < 0 {
		f.mu.Unlock()
		return false, nil
	}
	// A copy: Summary's callers hold the old slice.
	phases := append([]PhaseSummary(nil), f.sum.Phases...)
	fn(&phases[at])
	f.sum.Phases = phases
	f.sum.Scales = Scales(phases)
	f.mu.Unlock()
	return true, f.flush()
}
