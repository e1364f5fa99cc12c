package tree

import "testing"

// A text whose first line starts before it (an element far along a
// one-line array) has its first line's columns shifted, the next
// lines' as they are; errors and OffsetOf agree.
func TestParseJSONLineStartsColumnBefore(t *testing.T) {
	src := []byte(`{"a": 1,  "é": {"b": 2}}`)
	d, err := ParseJSONWith("f", src, JSONOptions{Limits: DefaultLimits, LineBase: 4, LineStarts: []int{-9, 9}})
	if err != nil {
		t.Fatal(err)
	}
	for ptr, want := range map[string][2]int{"/a": {5, 16}, "/é/b": {6, 13}} {
		n := d.Root
		for _, k := range SplitPointer(ptr) {
			n = n.Get(k)
		}
		if n.Line() != want[0] || n.Col() != want[1] {
			t.Errorf("%s at %d:%d, want %v", ptr, n.Line(), n.Col(), want)
		}
		if off := d.OffsetOf(n.Line()-4, n.Col()); off != n.Offset {
			t.Errorf("%s: OffsetOf(%d, %d) = %d, want %d", ptr, n.Line()-4, n.Col(), off, n.Offset)
		}
	}
	if d.OffsetOf(1, 3) != 0 {
		t.Errorf("a column before the text is its start")
	}
	_, err = ParseJSONWith("f", []byte(`{"a" 1}`), JSONOptions{Limits: DefaultLimits, LineStarts: []int{-99}})
	if se, ok := err.(*SyntaxError); !ok || se.Line != 1 || se.Col != 105 {
		t.Errorf("error %v, want at 1:105", err)
	}
}
