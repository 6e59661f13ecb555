package config

import (
	"reflect"
	"strings"

	"myclaw/internal/suggest"
)

// BuiltinProvider names the default setup (a local Ollama), which needs no
// [providers] table.
const BuiltinProvider = "ollama"

// nearestKey suggests the known key closest to an unknown one (path is the
// full key, e.g. ["shell", "timeout_secs"]), by the edit distance the slash
// commands use; "" when nothing is close.
func nearestKey(path []string) string {
	if len(path) == 0 {
		return ""
	}
	t := reflect.TypeOf(Config{})
	for _, part := range path[:len(path)-1] {
		if t = fieldType(t, part); t == nil {
			return ""
		}
	}
	for t.Kind() == reflect.Map || t.Kind() == reflect.Slice || t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return ""
	}
	name := path[len(path)-1]
	best, bestD := "", 0
	for i := range t.NumField() {
		k := tomlName(t.Field(i))
		if k == "" {
			continue
		}
		d := suggest.EditDistance(name, k)
		if strings.HasPrefix(k, name) || strings.HasPrefix(name, k) {
			d = min(d, 2)
		}
		if best == "" || d < bestD {
			best, bestD = k, d
		}
	}
	if bestD > max(2, len(name)/3) {
		return ""
	}
	return best
}

// fieldType is the type under key part of t; a map or slice step (a
// [providers.NAME] or [[tools]] entry) goes to its element.
func fieldType(t reflect.Type, part string) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Map, reflect.Slice:
		return t.Elem()
	case reflect.Struct:
		for i := range t.NumField() {
			if tomlName(t.Field(i)) == part {
				return t.Field(i).Type
			}
		}
	}
	return nil
}

func tomlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	if name == "-" {
		return ""
	}
	return name
}
