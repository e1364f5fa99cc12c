package savedplan

import (
	"testing"
)

// FuzzParse: any bytes as a plan are read or refused with an error, never
// a panic; a plan that reads has a digest that matches, so changing any
// one byte of it is refused or reads back unchanged in meaning. Patch
// never panics on the edits of a plan that reads.
func FuzzParse(f *testing.F) {
	b, _ := testPlan().Marshal()
	f.Add(b)
	f.Add([]byte(`{"format":"schedtool-plan","version":1,"digest":""}`))
	f.Add([]byte(`{"format":"schedtool-plan","version":1,"groups":[{"files":[{"path":"x","edits":[{"start":-1,"end":99,"new":""}]}]}],"digest": "sha256:"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse("p", b, "v1.2.0")
		if err != nil {
			return
		}
		for _, g := range p.Groups {
			for _, fl := range g.Files {
				Patch([]byte("abc"), fl.Edits)
			}
		}
		for _, d := range p.Dumps {
			for _, r := range d.Rows {
				Patch([]byte("{}"), r.Edits)
			}
		}
		// What reads is what Marshal writes, digest and all.
		again, err := p.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse("p", again, "v1.2.0"); err != nil {
			t.Fatalf("a plan read does not read back once written: %v", err)
		}
	})
}
