package tree

import "testing"

// A %YAML 1.1 or 1.2 directive before the document is read (Flow's
// reader accepts both; go-yaml alone refuses 1.2), the tree's offsets
// still point into the source as written, which keeps the directive.
func TestYAMLDirective(t *testing.T) {
	for _, tc := range []struct {
		src string
		ok  bool
	}{
		{"%YAML 1.2\n---\na: 1\n", true},
		{"%YAML 1.1\n---\na: 1\n", true},
		{"# lead\n\n%YAML 1.2\r\n---\r\na: 1\r\n", true},
		{"\xef\xbb\xbf%YAML 1.2\n---\na: 1\n", true},
		{"%YAML 1.2\n%TAG ! tag:example.com,2000:\n---\na: 1\n", true},
		{"a: 1\n%YAML 1.2\n", false},      // not before the document: still an error
		{"%YAML 2.0\n---\na: 1\n", false}, // a version Flow does not read
	} {
		d, err := ParseYAML("f.yaml", []byte(tc.src), DefaultLimits)
		if (err == nil) != tc.ok {
			t.Errorf("%q: err %v, want ok %v", tc.src, err, tc.ok)
			continue
		}
		if err != nil {
			continue
		}
		if string(d.Src) != tc.src {
			t.Errorf("%q: the document's source changed to %q", tc.src, d.Src)
		}
		a := d.Root.Get("a")
		if a == nil || string(d.Src[a.Offset:a.Offset+1]) != "1" || a.Line() != d.Root.Line() {
			t.Errorf("%q: a is not read where it is written: %+v", tc.src, a)
		}
	}
}
