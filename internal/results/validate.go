package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// damaged says in the user's words why a JSON file of the folder could
// not be read, instead of Go's parser text: where it stops being JSON,
// or which field holds what kind of value.
func damaged(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn) && strings.Contains(syn.Error(), "unexpected end"):
		return "cut short: it ends in the middle of its JSON"
	case errors.As(err, &syn):
		return fmt.Sprintf("not JSON at byte %d", syn.Offset)
	case errors.As(err, &typ) && typ.Field != "":
		return fmt.Sprintf("%s holds a JSON %s where storbench writes %s", typ.Field, typ.Value, kindOf(typ.Type.Kind().String()))
	case errors.As(err, &typ):
		return fmt.Sprintf("a JSON %s where storbench writes %s", typ.Value, kindOf(typ.Type.Kind().String()))
	}
	return err.Error()
}

// kindOf names a Go kind in JSON's words.
func kindOf(k string) string {
	switch {
	case strings.HasPrefix(k, "int") || strings.HasPrefix(k, "uint"):
		return "a whole number"
	case strings.HasPrefix(k, "float"):
		return "a number"
	case k == "string":
		return "a string"
	case k == "bool":
		return "true or false"
	case k == "slice" || k == "array":
		return "a list"
	case k == "map" || k == "struct" || k == "ptr":
		return "an object"
	}
	return "another kind of value"
}
