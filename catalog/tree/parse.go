package tree

import (
	"bytes"
	"path/filepath"
	"strings"
)

// Parse parses a document by its file name: .json with the JSON parser,
// anything else as YAML (a JSON document given another name is read by
// the JSON parser too, so tab indentation loads).
func Parse(file string, src []byte, lim Limits) (*Doc, error) {
	if ReadAsJSON(file, src) {
		return ParseJSON(file, src, lim)
	}
	return ParseYAML(file, src, lim)
}

// ReadAsJSON says whether Parse reads a document with the JSON parser.
func ReadAsJSON(file string, src []byte) bool {
	return strings.EqualFold(filepath.Ext(file), ".json") || looksJSON(src)
}

// ParseSource parses a catalog source as Flow reads one: Parse, then
// merge keys applied (tree.MergeKeys), which Flow applies to catalog
// sources only, never to a config file.
func ParseSource(file string, src []byte, lim Limits) (*Doc, error) {
	d, err := Parse(file, src, lim)
	if err != nil {
		return nil, err
	}
	if err := MergeKeys(d); err != nil {
		return nil, err
	}
	return d, nil
}

func looksJSON(src []byte) bool {
	t := bytes.TrimLeft(src, " \t\r\n")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

func Article(k Kind) string {
	switch k {
	case Object, Array:
		return "an " + k.String()
	}
	return "a " + k.String()
}
