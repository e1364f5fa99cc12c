// Package schemas publishes JSON Schemas of the model syncSchedule and of
// the connectors' syncSchedule object, generated from the Go types, and
// checks values against them. validate uses the check for the structural
// part of decoding, so the published schema and the code cannot drift.
package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	invopop "github.com/invopop/jsonschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"schedtool/schedule/connector"
	"schedtool/schedule/model"
)

const (
	ModelID     = "https://schedtool.dev/schemas/model-sync-schedule.json"
	ConnectorID = "https://schedtool.dev/schemas/connector-sync-schedule.json"
)

func reflect(v any, id, title, desc string) []byte {
	r := invopop.Reflector{DoNotReference: true, ExpandedStruct: true}
	s := r.Reflect(v)
	s.ID = invopop.ID(id)
	s.Title = title
	s.Description = desc
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// Model is the JSON Schema of a materialization's syncSchedule.
func Model() []byte {
	return reflect(&model.Spec{}, ModelID, "Materialization sync schedule",
		"The top-level syncSchedule of a Flow materialization, paced by the V2 runtime.")
}

// Connector is the JSON Schema of the connectors' syncSchedule object.
func Connector() []byte {
	return reflect(&connector.SyncScheduleSpec{}, ConnectorID, "Connector sync schedule",
		"The syncSchedule object of a warehouse connector's endpoint config (connector-side pacing).")
}

var (
	once              sync.Once
	modelSch, connSch *jsonschema.Schema
	errCompile        error
)

func compile() {
	c := jsonschema.NewCompiler()
	for id, b := range map[string][]byte{ModelID: Model(), ConnectorID: Connector()} {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err == nil {
			err = c.AddResource(id, doc)
		}
		if err != nil {
			errCompile = err
			return
		}
	}
	if modelSch, errCompile = c.Compile(ModelID); errCompile != nil {
		return
	}
	connSch, errCompile = c.Compile(ConnectorID)
}

// Problem is a structural failure at a path (JSON pointer tokens relative
// to the checked value), worded as Flow's decoder (serde) words it.
type Problem struct {
	Path []string
	Msg  string
}

// CheckModel checks a generic value against the model schema.
// Null values are dropped first: Flow reads an optional null as absent.
func CheckModel(v any) *Problem { return check(&modelSch, dropNulls(v)) }

func dropNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			if e != nil {
				c[k] = dropNulls(e)
			}
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = dropNulls(e)
		}
		return c
	}
	return v
}

// CheckConnector checks a connector syncSchedule object (null values
// dropped first: the connector reads null as empty). Enum failures are not
// problems: the connector accepts off-enum values.
func CheckConnector(v any) *Problem {
	if m, ok := v.(map[string]any); ok {
		c := make(map[string]any, len(m))
		for k, x := range m {
			if x != nil {
				c[k] = x
			}
		}
		v = c
	}
	return check(&connSch, v)
}

func check(sch **jsonschema.Schema, v any) *Problem {
	once.Do(compile)
	if errCompile != nil {
		panic("schemas: " + errCompile.Error())
	}
	err := (*sch).Validate(v)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return &Problem{Msg: err.Error()}
	}
	leaves := leafErrors(ve, nil)
	sort.SliceStable(leaves, func(i, j int) bool {
		return strings.Join(leaves[i].InstanceLocation, "/") < strings.Join(leaves[j].InstanceLocation, "/")
	})
	for _, l := range leaves {
		if p := describe(l); p != nil {
			return p
		}
	}
	return nil
}

func leafErrors(e *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return append(out, e)
	}
	for _, c := range e.Causes {
		out = leafErrors(c, out)
	}
	return out
}

func describe(e *jsonschema.ValidationError) *Problem {
	path := e.InstanceLocation
	switch k := e.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		props := append([]string(nil), k.Properties...)
		sort.Strings(props)
		return &Problem{Path: append(append([]string{}, path...), props[0]), Msg: fmt.Sprintf("unknown field `%s`", props[0])}
	case *kind.Required:
		return &Problem{Path: path, Msg: fmt.Sprintf("missing field `%s`", k.Missing[0])}
	case *kind.Type:
		return &Problem{Path: path, Msg: fmt.Sprintf("invalid type: %s, expected %s", k.Got, strings.Join(k.Want, " or "))}
	case *kind.Enum:
		return nil
	}
	return &Problem{Path: path, Msg: e.Error()}
}
