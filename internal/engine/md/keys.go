package md

import "github.com/storbench/storbench/internal/engine"

var _ engine.KeyLister = Engine{}

// ParamKeys lists the md phase's settings, so a suite can refuse a misspelt
// one with a suggestion.
func (Engine) ParamKeys() []string { return engine.JSONKeys(Params{}) }
