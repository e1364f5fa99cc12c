package migrate

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// FoldName is a catalog name as a case-insensitive filesystem compares
// paths: canonically decomposed (APFS does not tell NFC from NFD) and
// case-folded rune by rune (each rune to the least of its simple case
// folding orbit, so K, k and the Kelvin sign are one). Two names with one
// FoldName would have their sources at one path on macOS or Windows.
func FoldName(name string) string {
	var b strings.Builder
	b.Grow(len(name))
	for _, r := range norm.NFD.String(name) {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}

// CaseClashes maps each name that differs from another only in case (or
// in Unicode normalisation) to those others, sorted. A name given twice
// as is is not a clash of its own (that is a duplicate row).
func CaseClashes(names []string) map[string][]string {
	byFold := map[string][]string{}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		k := FoldName(n)
		byFold[k] = append(byFold[k], n)
	}
	clash := map[string][]string{}
	for _, group := range byFold {
		if len(group) < 2 {
			continue
		}
		sort.Strings(group)
		for _, n := range group {
			for _, o := range group {
				if o != n {
					clash[n] = append(clash[n], o)
				}
			}
		}
	}
	return clash
}

// caseClashReason is why a task whose name clashes is not written.
func caseClashReason(others []string) string {
	return fmt.Sprintf("its catalog name differs only in case from %s: Flow holds one task for both (catalog names are unique regardless of case), and their sources would be one file on a case-insensitive filesystem (macOS, Windows); neither is written: keep the live one and migrate it with --name", strings.Join(others, ", "))
}
