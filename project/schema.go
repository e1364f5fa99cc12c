package project

import (
	"encoding/json"

	invopop "github.com/invopop/jsonschema"
)

// SchemaID is the project file's JSON Schema's $id.
const SchemaID = "https://schedtool.dev/schemas/project.json"

// Schema is the JSON Schema of the project file, from the Go types Parse
// fills (so that the two cannot drift; the tests check the documented
// file and the refused ones against both).
func Schema() []byte {
	r := invopop.Reflector{DoNotReference: true, ExpandedStruct: true, AllowAdditionalProperties: false}
	s := r.Reflect(&Config{})
	s.ID = invopop.ID(SchemaID)
	s.Title = "schedtool project file (.schedtool.yaml)"
	s.Description = "The choices an operator makes more than once: root, connectors, default PATHs, exclude, decisions and exceptions (docs/behaviour.md §13). Paths are relative to the file's directory; a command-line flag wins over the file."
	// Each exception names a rule or a status, one of them.
	if ex, ok := s.Properties.Get("exceptions"); ok && ex.Items != nil {
		ex.Items.OneOf = []*invopop.Schema{{Required: []string{"rule"}}, {Required: []string{"status"}}}
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}
