package tools

import (
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// dropOptionalNulls removes, in place, the properties of v that are null
// where the schema declares them optional and does not admit null: weak
// models send `"verbose": null` for "not given", and refusing that would
// only teach them to retry. A null the schema accepts, a null for a required
// property and a null for an undeclared property are left for validation.
// Nested objects declared by the schema are cleaned the same way.
func dropOptionalNulls(sch *jsonschema.Schema, v any) {
	obj, ok := v.(map[string]any)
	if !ok || sch == nil {
		return
	}
	sch = resolveRef(sch)
	for k, val := range obj {
		prop := resolveRef(sch.Properties[k])
		if prop == nil {
			continue
		}
		if val != nil {
			dropOptionalNulls(prop, val)
			continue
		}
		if slices.Contains(sch.Required, k) || prop.Validate(nil) == nil {
			continue
		}
		delete(obj, k)
	}
}

// resolveRef follows a schema that is only a "$ref" to what it refers to.
func resolveRef(sch *jsonschema.Schema) *jsonschema.Schema {
	for i := 0; sch != nil && sch.Ref != nil && len(sch.Properties) == 0 && i < 8; i++ {
		sch = sch.Ref
	}
	return sch
}
