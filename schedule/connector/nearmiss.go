package connector

import (
	"fmt"
	"slices"
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
		if r == '_' || r == '-' || r == '.' || unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Cc, r) {
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

// keyset is what near misses are judged against for a family: its own
// top-level schedule key and the other families', with their skeletons.
type keyset struct {
	own, ownSk    string
	others, othSk []string
}

// scheduleKeys are the top-level schedule keys that Classify judges near
// misses against for an image: its family's own key, and the other
// families' (a file sink's config has no syncSchedule). Indexed registries
// keep them.
func (r *Registry) scheduleKeys(f Family) *keyset {
	if ks, ok := r.keysets[f]; ok {
		return ks
	}
	own := PointerTokens(r.Family(f).Pointer)[0]
	ks := &keyset{own: own, ownSk: skeleton(own)}
	fams := make([]Family, 0, len(r.Families))
	for g := range r.Families {
		fams = append(fams, g)
	}
	slices.Sort(fams)
	seen := map[string]bool{ks.ownSk: true}
	for _, g := range fams {
		k := PointerTokens(r.Families[g].Pointer)[0]
		if sk := skeleton(k); !seen[sk] {
			seen[sk] = true
			ks.others, ks.othSk = append(ks.others, k), append(ks.othSk, sk)
		}
	}
	return ks
}

// plainKey reports whether a key is ASCII letters and digits only: its
// skeleton is then its lower case.
func plainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// nearMiss says why a top-level config key is refused as a misspelled
// schedule key ("" when it is not one): a key encoding/json does not match
// to the image's schedule key (case folding aside) but that is that key
// with other separators, spaces, invisible characters or look-alike
// letters; or another family's schedule key, in any spelling.
func (r *Registry) nearMiss(e *Entry, key string) string {
	ks := r.scheduleKeys(e.Family)
	if strings.EqualFold(key, ks.own) {
		return ""
	}
	sk := strings.ToLower(key)
	if !plainKey(key) {
		sk = skeleton(key)
	}
	if sk == ks.ownSk {
		return fmt.Sprintf("json: unknown field %q; the connector refuses the whole config: this image's schedule key is %s", key, ks.own)
	}
	for i, o := range ks.others {
		if strings.EqualFold(key, o) || sk == ks.othSk[i] {
			return fmt.Sprintf("json: unknown field %q; the connector refuses the whole config: %s is another connector family's schedule key, and this image's is %s", key, o, ks.own)
		}
	}
	return ""
}

// Reads reports whether Classify reads a top-level config key for the
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
