package edit

import (
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog/tree"
)

func parse(file string, src []byte) (*tree.Doc, error) {
	if strings.HasSuffix(file, ".json") {
		return tree.ParseJSON(file, src, tree.DefaultLimits)
	}
	return tree.ParseYAML(file, src, tree.DefaultLimits)
}

var zero = Map{{Key: "syncFrequency", Value: Quoted("0s")}}
var model = Map{{Key: "baseInterval", Value: "4h"}, {Key: "timezone", Value: "America/New_York"},
	{Key: "windows", Value: []any{Map{{Key: "interval", Value: "15m"}, {Key: "start", Value: Quoted("09:00")}, {Key: "end", Value: Quoted("17:00")}, {Key: "days", Value: []any{"Mon", "Fri"}}}}}}

// migrateDoc patches the one materialization "m" of a test document:
// the model schedule before endpoint, the connector schedule zeroed.
func migrateDoc(t *testing.T, file, src string) (string, error) {
	t.Helper()
	doc, err := parse(file, []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	mat := doc.Root.Path("materializations", "m")
	cfg := mat.Path("endpoint", "connector", "config")
	res, err := Do(doc, []Patch{
		{Target: mat, Changes: Map{{Key: "syncSchedule", Value: Replace{model}, Before: "endpoint"}}},
		{Target: cfg, Changes: Map{{Key: "syncSchedule", Value: Replace{zero}}, {Key: "advanced", Value: Map{{Key: "updateDelay", Value: Remove}}}}},
	}, parse)
	if err != nil {
		return "", err
	}
	return string(res.New), nil
}

func TestEditGolden(t *testing.T) {
	cases := []struct{ name, file, in, want string }{
		{"block", "a.yaml", `materializations:
  m:
    # the task
    shards: {flags: {enable-runtime-v2: "true"}}
    # where it goes
    endpoint:
      connector:
        image: x
        config:
          host: h   # the host
          syncSchedule:
            syncFrequency: 1h  # hourly
            timezone: UTC
          # trailing comment
    bindings: []
`, `materializations:
  m:
    # the task
    shards: {flags: {enable-runtime-v2: "true"}}
    syncSchedule:
      baseInterval: 4h
      timezone: America/New_York
      windows:
        - {interval: 15m, start: "09:00", end: "17:00", days: [Mon, Fri]}
    # where it goes
    endpoint:
      connector:
        image: x
        config:
          host: h   # the host
          syncSchedule:
            syncFrequency: "0s"
          # trailing comment
    bindings: []
`},
		{"insert at end, crlf, 4 spaces, compact seqs", "b.yaml", "materializations:\r\n    m:\r\n        endpoint:\r\n            connector:\r\n                config:\r\n                    host: h\r\n                    advanced:\r\n                        updateDelay: 1h\r\n                        other: 1\r\n        bindings:\r\n        - x\r\n", "materializations:\r\n    m:\r\n        syncSchedule:\r\n            baseInterval: 4h\r\n            timezone: America/New_York\r\n            windows:\r\n            - {interval: 15m, start: \"09:00\", end: \"17:00\", days: [Mon, Fri]}\r\n        endpoint:\r\n            connector:\r\n                config:\r\n                    host: h\r\n                    advanced:\r\n                        other: 1\r\n                    syncSchedule:\r\n                        syncFrequency: \"0s\"\r\n        bindings:\r\n        - x\r\n"},
		{"flow", "c.yaml", `materializations:
  m: {endpoint: {connector: {image: x, config: { host: h, syncSchedule: {syncFrequency: 1h}, advanced: {updateDelay: 1h} }}}}
`, `materializations:
  m: {syncSchedule: {baseInterval: 4h, timezone: America/New_York, windows: [{interval: 15m, start: "09:00", end: "17:00", days: [Mon, Fri]}]}, endpoint: {connector: {image: x, config: { host: h, syncSchedule: {syncFrequency: "0s"}, advanced: {} }}}}
`},
		{"pretty json tabs", "d.json", "{\n\t\"materializations\": {\n\t\t\"m\": {\n\t\t\t\"endpoint\": {\"connector\": {\"image\": \"x\", \"config\": {\"syncSchedule\": {\"syncFrequency\": \"1h\"}}}}\n\t\t}\n\t}\n}\n",
			"{\n\t\"materializations\": {\n\t\t\"m\": {\n\t\t\t\"syncSchedule\": {\n\t\t\t\t\"baseInterval\": \"4h\",\n\t\t\t\t\"timezone\": \"America/New_York\",\n\t\t\t\t\"windows\": [{\"interval\": \"15m\", \"start\": \"09:00\", \"end\": \"17:00\", \"days\": [\"Mon\", \"Fri\"]}]\n\t\t\t},\n\t\t\t\"endpoint\": {\"connector\": {\"image\": \"x\", \"config\": {\"syncSchedule\": {\"syncFrequency\": \"0s\"}}}}\n\t\t}\n\t}\n}\n"},
		{"compact json", "e.json", `{"materializations":{"m":{"endpoint":{"connector":{"image":"x","config":{"advanced":{"updateDelay":"1h"},"a":1}}}}}}`,
			`{"materializations":{"m":{"syncSchedule":{"baseInterval":"4h","timezone":"America/New_York","windows":[{"interval":"15m","start":"09:00","end":"17:00","days":["Mon","Fri"]}]},"endpoint":{"connector":{"image":"x","config":{"advanced":{},"a":1,"syncSchedule":{"syncFrequency":"0s"}}}}}}}`},
		{"comments between a replaced key and its first child are kept", "g.yaml", "materializations:\n  m:\n    endpoint:\n      connector:\n        config:\n          syncSchedule:\n            # fast on weekdays, see TICKET-1\n\n            # (second comment)\n            syncFrequency: 1h\n            timezone: UTC\n          host: h\n",
			"materializations:\n  m:\n    syncSchedule:\n      baseInterval: 4h\n      timezone: America/New_York\n      windows:\n        - {interval: 15m, start: \"09:00\", end: \"17:00\", days: [Mon, Fri]}\n    endpoint:\n      connector:\n        config:\n          syncSchedule:\n            # fast on weekdays, see TICKET-1\n\n            # (second comment)\n            syncFrequency: \"0s\"\n          host: h\n"},
		{"empty value and no newline at end", "f.yaml", "materializations:\n  m:\n    endpoint:\n      connector:\n        config:\n          syncSchedule:", "materializations:\n  m:\n    syncSchedule:\n      baseInterval: 4h\n      timezone: America/New_York\n      windows:\n        - {interval: 15m, start: \"09:00\", end: \"17:00\", days: [Mon, Fri]}\n    endpoint:\n      connector:\n        config:\n          syncSchedule: {syncFrequency: \"0s\"}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := migrateDoc(t, c.file, c.in)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}
