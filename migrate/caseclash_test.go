package migrate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCaseClashes(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  map[string][]string
	}{
		{[]string{"acmeCo/Foo", "acmeCo/foo"}, map[string][]string{"acmeCo/Foo": {"acmeCo/foo"}, "acmeCo/foo": {"acmeCo/Foo"}}},
		{[]string{"acmeCo/foo", "ACMECO/FOO", "acmeCo/fOo", "acmeCo/bar"}, map[string][]string{
			"acmeCo/foo": {"ACMECO/FOO", "acmeCo/fOo"}, "ACMECO/FOO": {"acmeCo/fOo", "acmeCo/foo"}, "acmeCo/fOo": {"ACMECO/FOO", "acmeCo/foo"}}},
		{[]string{"acmeCo/foo", "acmeCo/foo"}, map[string][]string{}},                // a duplicate row, not a clash
		{[]string{"acmeCo/foo", "acmeCo/foo/x", "acmeCo/fo"}, map[string][]string{}}, // prefixes are different files
		{[]string{"a/kelvin\u212a", "a/kelvink"}, map[string][]string{"a/kelvin\u212a": {"a/kelvink"}, "a/kelvink": {"a/kelvin\u212a"}}},
		{[]string{"a/\u212b", "a/\u00e5"}, map[string][]string{"a/\u212b": {"a/\u00e5"}, "a/\u00e5": {"a/\u212b"}}},                                     // Angstrom sign, NFD
		{[]string{"a/\ud55c", "a/\u1112\u1161\u11ab"}, map[string][]string{"a/\ud55c": {"a/\u1112\u1161\u11ab"}, "a/\u1112\u1161\u11ab": {"a/\ud55c"}}}, // Hangul
		{[]string{"a/Σ", "a/σ", "a/ς"}, map[string][]string{"a/Σ": {"a/ς", "a/σ"}, "a/σ": {"a/Σ", "a/ς"}, "a/ς": {"a/Σ", "a/σ"}}},
		{[]string{"a/ÉTÉ", "a/été", "a/ete"}, map[string][]string{"a/ÉTÉ": {"a/été"}, "a/été": {"a/ÉTÉ"}}},
		{nil, map[string][]string{}},
	} {
		got := CaseClashes(tc.names)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("CaseClashes(%q) = %q, want %q", tc.names, got, tc.want)
		}
	}
}

// Names that differ only in case are found before anything is written:
// neither is written, both need review naming the other, and the rest of
// the tree is written.
func TestOutTreeCaseClash(t *testing.T) {
	for _, limit := range []int{0, 10} {
		t.Run(fmt.Sprint("limit ", limit), func(t *testing.T) {
			rows := []string{
				storedRow("acmeCo/Foo", "1234ff4b568003a5", ""),
				storedRow("acmeCo/other", "1234ff4b568003a6", ""),
				storedRow("acmeCo/foo", "1234ff4b568003a7", ""),
				storedRow("acmeCo/FOO/child", "1234ff4b568003a8", ""),
			}
			dir, sum, rep, notes := runTreeLimit(t, rows, limit)
			if sum.Written != 2 || sum.Review() != 2 || sum.Refused != 0 || sum.Failed != 0 {
				t.Errorf("summary %+v, want 2 written and 2 to review\n%s", sum, notes)
			}
			for _, want := range []string{
				"acmeCo/Foo (", "its catalog name differs only in case from acmeCo/foo: Flow holds one task for both",
				"acmeCo/foo (", "its catalog name differs only in case from acmeCo/Foo: Flow holds one task for both",
			} {
				if !strings.Contains(notes, want) {
					t.Errorf("notes lack %q:\n%s", want, notes)
				}
			}
			for _, task := range rep["tasks"].([]any) {
				task := task.(map[string]any)
				switch task["task"] {
				case "acmeCo/Foo", "acmeCo/foo":
					if task["action"] != "review" || task["files"] != nil || task["publish"] != nil || !strings.Contains(task["reason"].(string), "case-insensitive filesystem") {
						t.Errorf("%v", task)
					}
				}
			}
			var got []string
			filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
				if err == nil && !info.IsDir() {
					rel, _ := filepath.Rel(dir, p)
					got = append(got, filepath.ToSlash(rel))
				}
				return nil
			})
			if want := "[acmeCo/FOO/child/flow.yaml acmeCo/other/flow.yaml flow.yaml]"; fmt.Sprint(got) != want {
				t.Errorf("files %v, want %s", got, want)
			}
		})
	}
}
