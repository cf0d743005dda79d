package engine

import "github.com/storbench/storbench/internal/model"

// Decoder is implemented by engines whose settings (a phase's Params,
// JSON on the wire) decode into a typed value of their own. The spine has
// each phase decoded once (Registry.Decode) and keeps the value with the
// phase (Phase.Settings); the engine's hooks take it from there (Typed)
// instead of decoding the JSON again.
type Decoder interface {
	// Decode returns p's settings as the engine's typed value, or why
	// they do not decode (the error Validate would give).
	Decode(p Phase) (any, error)
}

// Decode returns phases with their settings decoded by their engines and
// kept with them. A phase whose engine decodes nothing, or whose settings
// do not decode, is returned as it was: Validate and the engine's hooks
// say what is wrong, where they said it before.
func (r Registry) Decode(phases []Phase) []Phase {
	out := make([]Phase, len(phases))
	for i, p := range phases {
		out[i] = r.Decoded(p)
	}
	return out
}

// Decoded returns p with its settings decoded by its engine and kept with
// it (p as it was when they are already, or do not decode).
func (r Registry) Decoded(p Phase) Phase {
	if _, ok := p.Decoded(); ok {
		return p
	}
	d, ok := r[p.Engine].(Decoder)
	if !ok {
		return p
	}
	if v, err := d.Decode(p); err == nil {
		p.Settings = model.NewSettings(p.Params, v)
	}
	return p
}

// Typed returns p's settings as decode makes them: the value kept with p
// when its Params are those it was decoded from, else decode's now (a
// phase the spine has not decoded, or one given new Params since). The
// value is shared by every copy of the phase: a hook copies it before
// changing it.
func Typed[T any](p Phase, decode func(Phase) (T, error)) (T, error) {
	if v, ok := p.Decoded(); ok {
		if t, ok := v.(T); ok {
			return t, nil
		}
	}
	return decode(p)
}
