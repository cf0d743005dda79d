package cli

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/engine"
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
