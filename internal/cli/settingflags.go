package cli

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/units"
)

// settingFlags registers a flag for every field of opts (a pointer to a
// command's options) tagged setting:"KEY", as the engine declares the
// setting (engine.Flag: name, shorthand, help, what 0 means): each
// setting is spelled once, by its engine. The default is the flag's own
// (Flag.Default), else the engine's default setting (defaults, by key:
// Registry.Defaults) when of the field's kind, else the zero value.
// benchmark is the command's benchmark (s3's op; "" for an engine
// without): a setting the engine declares for other benchmarks only
// (Flag.Benchmarks) has no flag, and one whose default differs by
// benchmark takes this one's (Flag.DefaultFor).
//
// only, when given, are the keys of the settings to register, the others
// left out (s3 probe takes only the server's).
func settingFlags(f *pflag.FlagSet, opts any, flags []engine.Flag, benchmark string, defaults map[string]any, only ...string) {
	v := reflect.ValueOf(opts).Elem()
	for i := range v.NumField() {
		key := v.Type().Field(i).Tag.Get("setting")
		if key == "" || (len(only) > 0 && !slices.Contains(only, key)) {
			continue
		}
		fl, ok, declared := engine.FlagOf(flags, key, benchmark)
		if !declared {
			panic(fmt.Sprintf("no flag declared for setting %q", key)) // a tag misspelt in the code
		}
		if !ok {
			continue
		}
		settingFlag(f, v.Field(i).Addr().Interface(), fl, defaults[key])
		switch {
		case fl.NonZero:
			nonZero(f, fl.Name, fl.LeftOut)
		case fl.ZeroMeans != "":
			zeroMeans(f, fl.Name, fl.ZeroMeans)
		}
		if fl.With != "" {
			partner, _, declared := engine.FlagOf(flags, fl.With, benchmark)
			if !declared {
				panic(fmt.Sprintf("setting %q goes with %q, which has no flag", key, fl.With)) // a declaration's typo
			}
			mustAnnotate(f, fl.Name, annWith, partner.Name)
		}
	}
}

// settingFlag registers fl for the field at p, with def the engine's
// default setting (nil: none), as JSON decodes it.
func settingFlag(f *pflag.FlagSet, p any, fl engine.Flag, def any) {
	switch p := p.(type) {
	case *string:
		d, _ := def.(string)
		if fl.Default != "" {
			d = fl.Default
		}
		f.StringVarP(p, fl.Name, fl.Short, d, fl.Help)
	case *bool:
		d, _ := def.(bool)
		if fl.Default != "" {
			d, _ = strconv.ParseBool(fl.Default)
		}
		f.BoolVarP(p, fl.Name, fl.Short, d, fl.Help)
	case *int:
		f.IntVarP(p, fl.Name, fl.Short, int(numDefault(fl, def)), fl.Help)
	case *int64:
		f.Int64VarP(p, fl.Name, fl.Short, int64(numDefault(fl, def)), fl.Help)
	case *float64:
		f.Float64VarP(p, fl.Name, fl.Short, numDefault(fl, def), fl.Help)
	case *[]string:
		f.StringSliceVarP(p, fl.Name, fl.Short, nil, fl.Help)
	default:
		panic(fmt.Sprintf("setting %q: a flag of type %T", fl.Key, p)) // a field of a kind no flag has yet
	}
}

// numDefault is a number flag's default: its own, else the engine's
// setting's.
func numDefault(fl engine.Flag, def any) float64 {
	if fl.Default != "" {
		n, err := strconv.ParseFloat(fl.Default, 64)
		if err != nil {
			panic(fmt.Sprintf("setting %q: default %q is no number", fl.Key, fl.Default)) // a declaration's typo
		}
		return n
	}
	d, _ := def.(float64)
	return d
}

// changedSettings puts into p, by key, the value of every field of opts
// tagged setting:"KEY" whose flag was registered by the engine's name
// (flags, as the command of benchmark has them) and given on the command
// line, unless p has the key already: what was left out stays out, for
// the environment or the engine's default.
func changedSettings(fs *pflag.FlagSet, opts any, p map[string]any, flags []engine.Flag, benchmark string) {
	v := reflect.ValueOf(opts).Elem()
	for i := range v.NumField() {
		key := v.Type().Field(i).Tag.Get("setting")
		fl, ok, _ := engine.FlagOf(flags, key, benchmark)
		if _, set := p[key]; key == "" || set || !ok || fs.Lookup(fl.Name) == nil || !fs.Changed(fl.Name) {
			continue
		}
		p[key] = v.Field(i).Interface()
	}
}

// settingValues are the values of opts's fields (opts a pointer to a
// command's options) tagged setting:"KEY", by key, as given, those left
// out among them (settingsGiven drops those).
func settingValues(opts any) map[string]any {
	out := map[string]any{}
	v := reflect.ValueOf(opts).Elem()
	for i := range v.NumField() {
		if key := v.Type().Field(i).Tag.Get("setting"); key != "" {
			out[key] = v.Field(i).Interface()
		}
	}
	return out
}

// settingsGiven are the settings opts gives (settingValues) but those
// that leave the engine's default: text and lists left empty, a 0 the
// engine's flag refuses (Flag.NonZero: 0 is its flag left out), and a
// setting that qualifies one left out (Flag.With: its flag's default is
// no choice made). Text stays as typed: what a run records of the
// settings given (run.Plan.Settings).
func settingsGiven(opts any, flags []engine.Flag) map[string]any {
	p := settingValues(opts)
	for key, val := range p {
		if fl, _, _ := engine.FlagOf(flags, key, ""); fl.NonZero && reflect.ValueOf(val).IsZero() {
			delete(p, key)
			continue
		}
		switch x := val.(type) {
		case string:
			if x == "" {
				delete(p, key)
			}
		case []string:
			if len(x) == 0 {
				delete(p, key)
			}
		}
	}
	for key := range p {
		if fl, _, _ := engine.FlagOf(flags, key, ""); fl.With != "" {
			if _, with := p[fl.With]; !with {
				delete(p, key)
			}
		}
	}
	return p
}

// settingParams are the engine's settings as opts gives them
// (settingsGiven: what is left out leaves the engine's default). A text
// whose setting the engine types as a size or a duration (typed: its
// typed settings, Info.Defaults) is read as one here, so bad input names
// the flag (flags: Info.Flags).
func settingParams(opts any, flags []engine.Flag, typed any) (map[string]any, error) {
	kinds := settingTypes(typed)
	p := settingsGiven(opts, flags)
	for key, val := range p {
		x, ok := val.(string)
		if !ok {
			continue
		}
		t, err := typedText(x, kinds[key])
		if err != nil {
			fl, _, _ := engine.FlagOf(flags, key, "")
			return nil, usageErr("--%s %s: %v", fl.Name, x, err)
		}
		p[key] = t
	}
	return p, nil
}

// settingTypes are the types of typed's fields (a struct of settings, as
// an engine decodes them) by their JSON key, pointers taken through.
func settingTypes(typed any) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	t := reflect.TypeOf(typed)
	if t == nil || t.Kind() != reflect.Struct {
		return out
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if ft := f.Type; name != "" && name != "-" {
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			out[name] = ft
		}
	}
	return out
}

// typedText reads s as the engine's type t reads it when t is a size or a
// duration; any other text stays text.
func typedText(s string, t reflect.Type) (any, error) {
	switch t {
	case reflect.TypeFor[units.Size]():
		n, err := units.ParseSize(s)
		return units.Size(n), err
	case reflect.TypeFor[units.Duration]():
		d, err := units.ParseDuration(s)
		return units.Duration(d), err
	}
	return s, nil
}
