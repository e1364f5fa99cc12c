package main

import (
	"github.com/spf13/cobra"

	"github.com/estuary/schedtool/project"
	"github.com/estuary/schedtool/schemas"
)

func newSchema(c *common) *cobra.Command {
	return &cobra.Command{
		Use:   "schema [model|connector|config]",
		Short: "Print the JSON Schemas of the model and connector syncSchedule, and of the project file",
		Long: `schema prints the JSON Schema of the materialization syncSchedule (model) and
of the connectors' syncSchedule object (connector), generated from the Go
types that validate decodes with. Without an argument it prints both, as one
JSON object keyed by name. config is the schema of the project file,
.schedtool.yaml (editors validate it with a yaml-language-server comment).`,
		Example: `  schedtool schema model > model-sync-schedule.schema.json
  schedtool schema connector | jq .properties.syncFrequency.enum
  schedtool schema config > schedtool-project.schema.json`,
		Args:      wrapArgs(cobra.MatchAll(cobra.MaximumNArgs(1), cobra.OnlyValidArgs)),
		ValidArgs: []string{"model", "connector", "config"},
		RunE: func(cmd *cobra.Command, args []string) error {
			which := ""
			if len(args) == 1 {
				which = args[0]
			}
			var out []byte
			switch which {
			case "model":
				out = schemas.Model()
			case "connector":
				out = schemas.Connector()
			case "config":
				out = project.Schema()
			default:
				out = append([]byte(`{"model": `), schemas.Model()...)
				out = append(out[:len(out)-1], []byte(",\n\"connector\": ")...)
				out = append(out, schemas.Connector()...)
				out = append(out[:len(out)-1], []byte("}\n")...)
			}
			_, err := c.Out.Write(out)
			return err
		},
	}
}
