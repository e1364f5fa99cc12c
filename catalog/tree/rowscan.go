package tree

import (
	"bytes"
	"errors"
)

// RowShape is what ScanRow found in one stored-spec row: the raw bytes
// (as written) of the few values a census decision depends on.
type RowShape struct {
	Name     []byte // catalog_name, decoded (it has no escapes)
	SpecType []byte // spec_type, decoded
	Image    []byte // endpoint.connector.image, decoded ("" when none)
	// Key holds, as written, the image, the runtime flag, whether a model
	// schedule is there, the endpoint kind and the config's schedule keys
	// with their values: two rows with the same Key get the same census
	// row but for their names.
	Key []byte
	// Model is the model syncSchedule as written (nil when absent).
	Model []byte
	// At says where Key's values start in the row (ScanRowAt only).
	At RowOffsets
}

// RowOffsets are byte offsets in a row of the values a RowShape's Key
// holds, -1 for one that is absent: the spec object, the runtime flag,
// the model schedule, the image (its opening quote), the config, and
// each config key's value in Key's order, as start and end pairs. A
// caller that places findings in a row finds them by these offsets and
// the Key's bytes.
type RowOffsets struct {
	Spec, Flag, Model, Image, Config int
	Keys                             []int
	// ASCII is the length of the row's leading ASCII bytes: a column
	// before it is its offset plus one.
	ASCII int
}

// ScanRow checks a row as ParseJSONWith with a lean dump skip would,
// without building it, and collects its shape. ok is false whenever the
// row is not plainly valid and plainly shaped (a syntax error, a
// duplicate key, an escape in a key or name, a config given as a path,
// a value of an unexpected type): the caller then reads it the slow way,
// which reports what is wrong. configKeys selects the config keys that
// matter, by prefix.
func ScanRow(src []byte, lim Limits, configKeys []string, key []byte) (shape RowShape, ok bool) {
	return scanRow(src, lim, configKeys, key, nil, false)
}

// ScanRowAt is ScanRow that also says where the shape's values are
// (RowShape.At), appending the config keys' offsets to offs.
func ScanRowAt(src []byte, lim Limits, configKeys []string, key []byte, offs []int) (shape RowShape, ok bool) {
	return scanRow(src, lim, configKeys, key, offs, true)
}

func scanRow(src []byte, lim Limits, configKeys []string, key []byte, offs []int, at bool) (shape RowShape, ok bool) {
	s := rowScanner{p: jsonParser{doc: &scanDoc, src: src, lim: lim}, keys: configKeys, key: key[:0],
		at: RowOffsets{Spec: -1, Flag: -1, Model: -1, Image: -1, Config: -1, Keys: offs[:0]}, wantAt: at}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	p := &s.p
	p.ws()
	if !s.object(0, s.root) {
		return shape, false
	}
	p.ws()
	if p.pos != len(src) || len(s.name) == 0 || s.specType == nil || !s.spec || (lim.MaxNodes > 0 && s.built > lim.MaxNodes/2) {
		return shape, false
	}
	s.key = append(s.key, 0)
	s.key = append(s.key, s.image...)
	s.key = append(s.key, 0)
	s.key = append(s.key, s.flag...)
	s.key = append(s.key, 0)
	s.key = append(s.key, s.disable...)
	if s.model == nil || string(s.model) == "null" {
		s.key = append(s.key, "\x00nomodel"...)
	} else {
		s.key = append(s.key, "\x00model"...)
	}
	s.key = append(s.key, 0)
	s.key = append(s.key, s.endpoint...)
	s.key = append(s.key, 0, s.configKind)
	s.key = append(s.key, s.config...)
	s.at.ASCII = len(src)
	if p.high > 0 {
		s.at.ASCII = p.high - 1
	}
	return RowShape{Name: s.name, SpecType: s.specType, Image: s.image, Key: s.key, Model: s.model, At: s.at}, true
}

var scanDoc Doc // errors are never formatted (errScan): any error means "slow path"

// errScan is every error of a parser on scanDoc.
var errScan = errors.New("not a plain row")

type rowScanner struct {
	p    jsonParser
	keys []string
	key  []byte

	name, specType, flag, model, image []byte
	disable                            []byte
	endpoint                           string
	spec                               bool
	configKind                         byte // 'n' none or null, 'o' object
	config                             []byte
	built                              int // values the lean parser would build
	at                                 RowOffsets
	wantAt                             bool
}

// field handles one key of an object; it consumes the value.
type fieldFunc func(depth int, key []byte) bool

// object scans an object at p.pos, calling f for each key (duplicate
// keys and keys with escapes refused).
func (s *rowScanner) object(depth int, f fieldFunc) bool {
	p := &s.p
	if p.pos >= len(p.src) || p.src[p.pos] != '{' || (p.lim.MaxDepth > 0 && depth+2 > p.lim.MaxDepth) {
		return false
	}
	p.pos++
	p.ws()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		return true
	}
	var seen [16][]byte
	n := 0
	for {
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return false
		}
		start := p.pos + 1
		if p.skipString() != nil {
			return false
		}
		k := p.src[start : p.pos-1]
		if bytes.IndexByte(k, '\\') >= 0 || n == len(seen) {
			return false
		}
		for _, prev := range seen[:n] {
			if bytes.Equal(prev, k) {
				return false
			}
		}
		seen[n] = k
		n++
		p.ws()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return false
		}
		p.pos++
		p.ws()
		if !f(depth+1, k) {
			return false
		}
		p.ws()
		if p.pos >= len(p.src) {
			return false
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			p.ws()
		case '}':
			p.pos++
			return true
		default:
			return false
		}
	}
}

// value scans any value; built values (those the lean parser builds)
// have their objects checked for duplicate keys.
func (s *rowScanner) value(depth int, built bool) bool {
	p := &s.p
	if p.pos >= len(p.src) {
		return false
	}
	if !built {
		return p.skipValue(depth) == nil
	}
	s.built++
	switch p.src[p.pos] {
	case '{':
		return s.object(depth, func(d int, _ []byte) bool { return s.value(d, true) })
	case '[':
		if p.lim.MaxDepth > 0 && depth+2 > p.lim.MaxDepth {
			return false
		}
		p.pos++
		p.ws()
		if p.pos < len(p.src) && p.src[p.pos] == ']' {
			p.pos++
			return true
		}
		for {
			if !s.value(depth+1, true) {
				return false
			}
			p.ws()
			if p.pos >= len(p.src) {
				return false
			}
			switch p.src[p.pos] {
			case ',':
				p.pos++
				p.ws()
			case ']':
				p.pos++
				return true
			default:
				return false
			}
		}
	}
	return p.skipValue(depth) == nil
}

// raw scans a value and returns its bytes.
func (s *rowScanner) raw(depth int, built bool) ([]byte, bool) {
	start := s.p.pos
	if !s.value(depth, built) {
		return nil, false
	}
	return s.p.src[start:s.p.pos], true
}

// str scans a string without escapes and returns its content.
func (s *rowScanner) str() ([]byte, bool) {
	p := &s.p
	if p.pos >= len(p.src) || p.src[p.pos] != '"' {
		return nil, false
	}
	start := p.pos + 1
	if p.skipString() != nil {
		return nil, false
	}
	v := p.src[start : p.pos-1]
	return v, bytes.IndexByte(v, '\\') < 0
}

func (s *rowScanner) root(depth int, k []byte) bool {
	var ok bool
	switch string(k) {
	case "catalog_name":
		s.name, ok = s.str()
		return ok
	case "spec_type":
		s.specType, ok = s.str()
		return ok
	case "spec":
		s.spec = true
		s.at.Spec = s.p.pos
		return s.object(depth, s.specField)
	}
	return s.value(depth, false)
}

func (s *rowScanner) specField(depth int, k []byte) bool {
	var ok bool
	switch string(k) {
	case "shards":
		// A shards, flags, flag or disable value of a type Flow's model
		// refuses is a finding placed in the row: the slow way decides.
		if !s.at1('{') {
			return false
		}
		return s.object(depth, func(d int, k []byte) bool {
			switch string(k) {
			case "flags":
				if !s.at1('{') {
					return false
				}
				return s.object(d, func(d int, k []byte) bool {
					if string(k) == "enable-runtime-v2" {
						s.at.Flag = s.p.pos
						s.flag, ok = s.raw(d, true)
						return ok
					}
					return s.at1('"') && s.value(d, true)
				})
			case "disable":
				s.disable, ok = s.raw(d, true)
				return ok && (string(s.disable) == "true" || string(s.disable) == "false")
			}
			return s.value(d, true)
		})
	case "syncSchedule":
		s.at.Model = s.p.pos
		s.model, ok = s.raw(depth, true)
		return ok
	case "endpoint":
		return s.object(depth, s.endpointField)
	case "delete":
		return false // a deletion (or not): the slow way decides
	case "secrets":
		// Secrets merged at task start may cover the schedule
		// (docs/behaviour.md §4.5): not in the shape, the slow way decides.
		return false
	}
	return s.value(depth, false)
}

// at1 reports whether the value at p.pos starts with c.
func (s *rowScanner) at1(c byte) bool {
	return s.p.pos < len(s.p.src) && s.p.src[s.p.pos] == c
}

func (s *rowScanner) endpointField(depth int, k []byte) bool {
	switch string(k) {
	case "connector":
		if s.endpoint == "" {
			s.endpoint = "connector"
		}
		return s.object(depth, s.connectorField)
	case "local", "dekaf":
		if s.endpoint != "connector" {
			// Extract takes the first of connector, local, dekaf present.
			if s.endpoint == "" || (s.endpoint == "dekaf" && string(k) == "local") {
				s.endpoint = string(k)
			}
		}
	}
	return s.value(depth, true)
}

func (s *rowScanner) connectorField(depth int, k []byte) bool {
	var ok bool
	switch string(k) {
	case "image":
		s.at.Image = s.p.pos
		s.image, ok = s.str()
		return ok
	case "config":
		p := &s.p
		s.at.Config = p.pos
		if p.pos < len(p.src) && p.src[p.pos] == '{' {
			s.configKind = 'o'
			return s.object(depth, s.configField)
		}
		if p.pos+4 <= len(p.src) && string(p.src[p.pos:p.pos+4]) == "null" {
			s.configKind = 'n'
			p.pos += 4
			return true
		}
		return false // a path, or not an object: the slow way says what
	}
	return s.value(depth, true)
}

func (s *rowScanner) configField(depth int, k []byte) bool {
	for _, b := range k {
		if b >= 0x80 {
			return false // a key that may fold into a schedule key: the slow way reads it
		}
	}
	if ConfigKeyMatch(string(k), s.keys) {
		{
			start := s.p.pos
			v, ok := s.raw(depth, true)
			if s.wantAt {
				s.at.Keys = append(s.at.Keys, start, s.p.pos)
			}
			s.config = append(s.config, 0)
			s.config = append(s.config, k...)
			s.config = append(s.config, 0)
			s.config = append(s.config, v...)
			return ok
		}
	}
	return s.value(depth, false)
}

// ConfigKeyMatch reports whether a config key may be one a schedule
// classification reads: it starts with one of keys, ignoring case as
// encoding/json does (the connectors' decoding) and the separators '_',
// '-', '.', space and tab (a near miss of a schedule key, sync_schedule
// or " uploadInterval", is refused by the connector, which classification
// reports), or it has a byte outside ASCII (Unicode folds such as ſ for
// s, confusables such as fullwidth letters).
func ConfigKeyMatch(key string, keys []string) bool {
	for i := 0; i < len(key); i++ {
		if key[i] >= 0x80 {
			return true
		}
	}
	for _, want := range keys {
		if foldPrefix(key, want) {
			return true
		}
	}
	return false
}

func isKeySep(c byte) bool { return c == '_' || c == '-' || c == '.' || c == ' ' || c == '\t' }

// foldPrefix reports whether want, separators aside, starts key,
// separators aside, in ASCII case folding.
func foldPrefix(key, want string) bool {
	i := 0
	for j := 0; j < len(want); j++ {
		if isKeySep(want[j]) {
			continue
		}
		for i < len(key) && isKeySep(key[i]) {
			i++
		}
		if i == len(key) {
			return false
		}
		a, b := key[i], want[j]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
		i++
	}
	return true
}
