package connector

import (
	"fmt"
	"strings"
	"unicode"
)

// The connectors decode their config strictly (encoding/json with
// DisallowUnknownFields, materialize-boilerplate's UnmarshalStrict and
// Flow's pf.UnmarshalStrict): a top-level key that no field matches, even
// by encoding/json's case folding, is refused with `json: unknown field
// "X"`, and the whole config with it. schedtool does not know every
// connector's config, but it knows the schedule keys: a key that is a near
// miss of one (another case is no miss: encoding/json folds it) is
// reported, so that a misspelled schedule is not read as the default.

// confusables maps letters that look like ASCII ones (Cyrillic, Greek,
// Latin variants) to them; fullwidth forms are mapped by range.
var confusables = map[rune]rune{
	'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x', 'і': 'i', 'ј': 'j', 'ѕ': 's', 'ԁ': 'd', 'һ': 'h', 'ԛ': 'q', 'ԝ': 'w',
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T', 'Х': 'X', 'І': 'I', 'Ј': 'J', 'Ѕ': 'S',
	'α': 'a', 'ο': 'o', 'ν': 'v', 'ι': 'i', 'κ': 'k', 'ρ': 'p', 'τ': 't', 'υ': 'u', 'ε': 'e',
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O', 'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
	'ı': 'i', 'ɑ': 'a', 'ɡ': 'g', 'ℓ': 'l',
}

// skeleton is a key with case, separators ('_', '-', '.', white space),
// invisible characters and confusables taken out: two keys with the same
// skeleton are near misses of each other.
func skeleton(k string) string {
	var b strings.Builder
	for _, r := range k {
		switch {
		case r >= 0xFF01 && r <= 0xFF5E: // fullwidth ASCII
			r -= 0xFEE0
		case r >= 0x1D400 && r <= 0x1D6A3: // mathematical alphanumerics
			r = mathLetter(r)
		}
		if c, ok := confusables[r]; ok {
			r = c
		}
		if r == '_' || r == '-' || r == '.' || unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) {
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// mathLetter maps a letter of the Mathematical Alphanumeric Symbols block
// (bold, italic, script, ... A-Z a-z, 52 letters per style) to ASCII.
func mathLetter(r rune) rune {
	i := (r - 0x1D400) % 52
	if i < 26 {
		return 'A' + i
	}
	return 'a' + i - 26
}

// ScheduleKeysOf are the top-level schedule keys that Classify judges near
// misses against for an image: its family's own key, and the other
// families' (a file sink's config has no syncSchedule).
func (r *Registry) scheduleKeys(e *Entry) (own string, others []string) {
	own = PointerTokens(r.Family(e.Family).Pointer)[0]
	seen := map[string]bool{own: true}
	fams := make([]Family, 0, len(r.Families))
	for f := range r.Families {
		fams = append(fams, f)
	}
	sortFamilies(fams)
	for _, f := range fams {
		k := PointerTokens(r.Families[f].Pointer)[0]
		if !seen[k] && skeleton(k) != skeleton(own) {
			seen[k] = true
			others = append(others, k)
		}
	}
	return own, others
}

func sortFamilies(fs []Family) {
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && fs[j] < fs[j-1]; j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
}

// nearMiss says why a top-level config key is refused as a misspelled
// schedule key ("" when it is not one): a key encoding/json does not match
// to the image's schedule key (case folding aside) but that is that key
// with other separators, spaces, invisible characters or look-alike
// letters; or another family's schedule key, in any spelling.
func (r *Registry) nearMiss(e *Entry, key string) string {
	own, others := r.scheduleKeys(e)
	if strings.EqualFold(key, own) {
		return ""
	}
	sk := skeleton(key)
	if sk == skeleton(own) {
		return fmt.Sprintf("json: unknown field %q; the connector refuses the whole config: this image's schedule key is %s", key, own)
	}
	for _, o := range others {
		if strings.EqualFold(key, o) || sk == skeleton(o) {
			return fmt.Sprintf("json: unknown field %q; the connector refuses the whole config: %s is another connector family's schedule key, and this image's is %s", key, o, own)
		}
	}
	return ""
}

// reads reports whether Classify reads a top-level config key for the
// image: one of its ConfigKeys (as encoding/json matches keys) or a near
// miss of a schedule key.
func (r *Registry) Reads(e *Entry, key string) bool {
	for _, k := range r.ConfigKeys(e) {
		if strings.EqualFold(key, k) {
			return true
		}
	}
	return r.nearMiss(e, key) != ""
}
