package safetext

import (
	"reflect"
	"sync"
)

// Copy returns a deep copy of v in which every string (of any string
// type: a phase's name, an engine's, a label's key and value) is escaped,
// so a renderer given the copy cannot write a bad character whichever
// field it prints. Values of html/template's types are markup already
// made safe and are kept as they are; so are unexported fields (copied as
// they are, as part of their struct) and values whose type holds no
// string (shared, not copied: a histogram's counts). v must hold no cycle.
func Copy[T any](v T) T { return CopyWith(v, Escape) }

// CopyWith is Copy with every string written by esc instead of Escape (a
// renderer's own escaping: Markdown's, which escapes more).
func CopyWith[T any](v T, esc func(string) string) T {
	src := reflect.ValueOf(&v).Elem()
	dst := reflect.New(src.Type()).Elem()
	copyValue(dst, src, esc)
	return dst.Interface().(T)
}

func copyValue(dst, src reflect.Value, esc func(string) string) {
	t := src.Type()
	if !holdsText(t) {
		dst.Set(src)
		return
	}
	switch t.Kind() {
	case reflect.String:
		dst.SetString(esc(src.String()))
	case reflect.Pointer:
		if !src.IsNil() {
			p := reflect.New(t.Elem())
			copyValue(p.Elem(), src.Elem(), esc)
			dst.Set(p)
		}
	case reflect.Interface:
		if !src.IsNil() {
			inner := src.Elem()
			c := reflect.New(inner.Type()).Elem()
			copyValue(c, inner, esc)
			dst.Set(c)
		}
	case reflect.Struct:
		dst.Set(src)
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				copyValue(dst.Field(i), src.Field(i), esc)
			}
		}
	case reflect.Slice, reflect.Array, reflect.Map:
		copyContainer(dst, src, esc)
	default:
		dst.Set(src)
	}
}

// copyContainer copies a slice, an array or a map, element by element.
func copyContainer(dst, src reflect.Value, esc func(string) string) {
	t := src.Type()
	switch t.Kind() {
	case reflect.Slice:
		if !src.IsNil() {
			s := reflect.MakeSlice(t, src.Len(), src.Len())
			for i := range src.Len() {
				copyValue(s.Index(i), src.Index(i), esc)
			}
			dst.Set(s)
		}
	case reflect.Array:
		for i := range src.Len() {
			copyValue(dst.Index(i), src.Index(i), esc)
		}
	case reflect.Map:
		if !src.IsNil() {
			m := reflect.MakeMapWithSize(t, src.Len())
			for it := src.MapRange(); it.Next(); {
				k, v := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
				copyValue(k, it.Key(), esc)
				copyValue(v, it.Value(), esc)
				m.SetMapIndex(k, v)
			}
			dst.Set(m)
		}
	}
}

// textTypes remembers, by type, whether a value of it can hold a string
// that Copy escapes.
var textTypes sync.Map

func holdsText(t reflect.Type) bool {
	if v, ok := textTypes.Load(t); ok {
		return v.(bool)
	}
	// A type that refers to itself is taken to hold text while it is
	// looked at: a copy too many is harmless, a string missed is not.
	textTypes.Store(t, true)
	has := false
	switch t.Kind() {
	case reflect.String:
		has = t.PkgPath() != "html/template"
	case reflect.Interface:
		has = true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		has = holdsText(t.Elem())
	case reflect.Map:
		has = holdsText(t.Key()) || holdsText(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && holdsText(f.Type) {
				has = true
				break
			}
		}
	}
	textTypes.Store(t, has)
	return has
}
