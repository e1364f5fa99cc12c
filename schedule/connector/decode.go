package connector

import (
	"fmt"
	"strings"
	"time"
)

// The connectors decode their config with encoding/json into structs. This
// file reads a config the same way: object keys match field names
// case-insensitively (strings.EqualFold is encoding/json's folding), keys
// are applied in document order so the last match wins, null leaves a field
// as it was, an object decoded into a struct field merges into what an
// earlier key put there, and the error reported is the first one met in
// document order (an unknown key or a value of the wrong type).

// Field is one key of a JSON object.
type Field struct {
	Key   string
	Value any
}

// Object is a JSON object with its keys in document order. Classify takes
// an Object or a map[string]any (whose keys it reads in sorted order).
type Object []Field

// fieldsOf returns the keys of an object value in the order encoding/json
// meets them.
func fieldsOf(v any) ([]Field, bool) {
	switch x := v.(type) {
	case Object:
		return x, true
	case map[string]any:
		out := make([]Field, 0, len(x))
		for _, k := range sortedKeys(x) {
			out = append(out, Field{k, x[k]})
		}
		return out, true
	}
	return nil, false
}

// Struct and type names in encoding/json's type errors. The top-level
// config struct is named config in the connectors; the advanced struct's
// name differs per connector.
const (
	goConfigStruct   = "config"
	goScheduleStruct = "ScheduleConfig"
	goScheduleType   = "materialize.ScheduleConfig"
	goAdvancedStruct = "advancedConfig"
	goAdvancedType   = "main.advancedConfig"
)

// fieldPath is the Go struct field path encoding/json names for a
// top-level key of a file sink's config: through the embedded store
// struct when the registry names it (config.S3StoreConfig.uploadInterval).
func fieldPath(e *Entry, key string) string {
	if e.ConfigStruct != "" {
		return goConfigStruct + "." + e.ConfigStruct + "." + key
	}
	return goConfigStruct + "." + key
}

func typeError(v any, field, typ string) string {
	return "json: cannot unmarshal " + describe(v) + " into Go struct field " + field + " of type " + typ
}

// firstError keeps the first decoding error, as encoding/json does.
type firstError struct{ p *Problem }

func (f *firstError) note(ptr, msg string) {
	if f.p == nil {
		f.p = &Problem{ProblemInvalid, ptr, msg}
	}
}

// Classify reads the schedule of one connector config (a generic JSON
// value: Object or map[string]any for objects, Encrypted for sealed
// values) for the image's family.
func (reg *Registry) Classify(e *Entry, tag string, config any) Result {
	info := reg.Family(e.Family)
	info.Enum = reg.EnumFor(e, tag) // what this tag publishes
	res := Result{Family: e.Family, Pointer: info.Pointer}
	fields, ok := fieldsOf(config)
	if !ok {
		res.Kind = KindInvalid
		res.Pointer = ""
		res.Problems = append(res.Problems, Problem{ProblemInvalid, "", "connector config must be an object, got " + describe(config)})
		return res
	}
	toks := PointerTokens(info.Pointer)
	miss := func(k string) string { return reg.nearMiss(e, k) }
	if len(toks) <= 1 {
		if e.Family == FamilySyncSchedule {
			return classifySyncSchedule(e, tag, info, fields, res, miss)
		}
		return classifyInterval(e, info, fields, res, miss)
	}
	// A misspelled schedule key at the top is refused before anything
	// under the path is read.
	for _, f := range fields {
		if msg := miss(f.Key); msg != "" {
			res.Kind, res.Pointer = KindInvalid, "/"+escape(f.Key)
			res.Problems = append(res.Problems, Problem{ProblemInvalid, res.Pointer, msg})
			return res
		}
	}
	noMiss := func(string) string { return "" }
	// A pointer of several levels (/advanced/x) is a path: the schedule
	// is the last key inside the objects the others name, matched as
	// encoding/json matches keys (folded, the last match wins).
	parent, whole := "", true
	for _, tok := range toks[:len(toks)-1] {
		var val any
		found := false
		for _, f := range fields {
			if strings.EqualFold(f.Key, tok) {
				val, found, parent = f.Value, true, parent+"/"+escape(f.Key)
			}
		}
		if !found || val == nil {
			fields, whole = nil, false // absent: as if the key were not there
			break
		}
		if _, ok := val.(Encrypted); ok {
			fields = []Field{{toks[len(toks)-1], val}} // its leaves are unknown
			break
		}
		inner, ok := fieldsOf(val)
		if !ok {
			res.Kind, res.Pointer = KindInvalid, parent
			res.Problems = append(res.Problems, Problem{ProblemInvalid, parent, typeError(val, goConfigStruct+"."+tok, "struct")})
			return res
		}
		fields = inner
	}
	leaf := info
	leaf.Pointer = "/" + escape(toks[len(toks)-1])
	res.Pointer = leaf.Pointer
	if e.Family == FamilySyncSchedule {
		res = classifySyncSchedule(e, tag, leaf, fields, res, noMiss)
	} else {
		res = classifyInterval(e, leaf, fields, res, noMiss)
	}
	if !whole {
		parent = strings.TrimSuffix(info.Pointer, leaf.Pointer)
	}
	under := func(p string) string {
		if p == "" {
			return p
		}
		return parent + p
	}
	res.Pointer = under(res.Pointer)
	for i := range res.KeyVariants {
		res.KeyVariants[i] = under(res.KeyVariants[i])
	}
	for i := range res.Problems {
		res.Problems[i].Pointer = under(res.Problems[i].Pointer)
	}
	return res
}

// PointerTokens splits a JSON pointer into its unescaped tokens ("" and
// "/" give none).
func PointerTokens(p string) []string {
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return nil
	}
	toks := strings.Split(p, "/")
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks
}

// PointerPath is a JSON pointer as messages name a key: its tokens joined
// by dots ("/advanced/updateDelay" is "advanced.updateDelay").
func PointerPath(p string) string { return strings.Join(PointerTokens(p), ".") }

// specField is the index in SyncScheduleKeys of the key a JSON key
// decodes into, or -1.
func specField(k string) int {
	for i, name := range SyncScheduleKeys {
		if strings.EqualFold(k, name) {
			return i
		}
	}
	return -1
}

func (s *SyncScheduleSpec) set(i int, v string) {
	switch i {
	case 0:
		s.SyncFrequency = v
	case 1:
		s.Timezone = v
	case 2:
		s.FastSyncStartTime = v
	case 3:
		s.FastSyncStopTime = v
	case 4:
		s.FastSyncEnabledDays = v
	}
}

// syncScheduleRead is what the config's keys say of the schedule, read
// in document order as the connector's decoder reads them, before any
// of it is judged.
type syncScheduleRead struct {
	spec        SyncScheduleSpec
	errs        firstError
	sealedWhole string    // pointer of an encrypted schedule object
	sealed      [5]string // pointer of an encrypted leaf, by field
	upd         any       // old tags: advanced.updateDelay
	updPtr      string    // where it is
	updUnknown  bool      // current tags: the key is there at all
	variants    []string  // keys matched by folding only
	seen        map[string]bool
}

func (r *syncScheduleRead) variant(k, want, ptr string) {
	if k != want && !r.seen[ptr] {
		r.seen[ptr] = true
		r.variants = append(r.variants, ptr)
	}
}

// readSyncSchedule reads the fields; miss says why a key is refused as a
// near miss of a schedule key ("" when it is not one). It sets res's
// Present and Pointer where the schedule key is.
func readSyncSchedule(key string, oldTag bool, fields []Field, res *Result, miss func(string) string) *syncScheduleRead {
	r := &syncScheduleRead{seen: map[string]bool{}}
	for _, f := range fields {
		at := "/" + escape(f.Key)
		if msg := miss(f.Key); msg != "" {
			r.errs.note(at, msg)
			continue
		}
		switch {
		case strings.EqualFold(f.Key, key):
			r.schedule(f, at, key, res)
		case strings.EqualFold(f.Key, "advanced"):
			r.advanced(f, at, oldTag)
		}
	}
	return r
}

// schedule reads the schedule object at at.
func (r *syncScheduleRead) schedule(f Field, at, key string, res *Result) {
	if f.Value == nil {
		return // null leaves the struct as it was
	}
	r.variant(f.Key, key, at)
	res.Present, res.Pointer = true, at
	if _, ok := f.Value.(Encrypted); ok {
		r.sealedWhole = at
		return
	}
	inner, isObj := fieldsOf(f.Value)
	if !isObj {
		r.errs.note(at, typeError(f.Value, goConfigStruct+"."+key, goScheduleType))
		return
	}
	for _, g := range inner {
		gat := at + "/" + escape(g.Key)
		i := specField(g.Key)
		if i < 0 {
			r.errs.note(gat, fmt.Sprintf("json: unknown field %q", g.Key))
			continue
		}
		r.variant(g.Key, SyncScheduleKeys[i], gat)
		switch x := g.Value.(type) {
		case nil:
		case string:
			r.spec.set(i, x)
			r.sealed[i] = ""
		case Encrypted:
			r.sealed[i] = gat
		default:
			r.errs.note(gat, typeError(x, goScheduleStruct+"."+key+"."+SyncScheduleKeys[i], "string"))
		}
	}
}

// advanced reads advanced.updateDelay at at.
func (r *syncScheduleRead) advanced(f Field, at string, oldTag bool) {
	if f.Value == nil {
		return
	}
	if _, ok := f.Value.(Encrypted); ok {
		return
	}
	inner, isObj := fieldsOf(f.Value)
	if !isObj {
		r.errs.note(at, typeError(f.Value, goConfigStruct+".advanced", goAdvancedType))
		return
	}
	for _, g := range inner {
		if !strings.EqualFold(g.Key, "updateDelay") {
			continue // other advanced options are not about schedules
		}
		gat := at + "/" + escape(g.Key)
		if !oldTag {
			// Current images dropped the field: any value, even
			// null or "", is an unknown field.
			r.updUnknown, r.updPtr = true, gat
			r.errs.note(gat, fmt.Sprintf("json: unknown field %q", g.Key))
			continue
		}
		switch x := g.Value.(type) {
		case nil:
		case string, Encrypted:
			r.upd, r.updPtr = x, gat
		default:
			r.errs.note(gat, typeError(x, goAdvancedStruct+".advanced.updateDelay", "string"))
		}
	}
}

// classifySyncSchedule judges what readSyncSchedule read: invalid,
// sealed, the legacy delay, default, zero, fixed or alternating.
func classifySyncSchedule(e *Entry, tag string, info FamilyInfo, fields []Field, res Result, miss func(string) string) Result {
	key := strings.TrimPrefix(info.Pointer, "/")
	r := readSyncSchedule(key, !e.AcceptsSyncSchedule(tag), fields, &res, miss)
	spec, errs, sealedWhole, sealed, upd, updPtr, updUnknown, variants := r.spec, r.errs, r.sealedWhole, r.sealed, r.upd, r.updPtr, r.updUnknown, r.variants
	res.KeyVariants = variants
	if updUnknown {
		res.Problems = append(res.Problems, Problem{ProblemUpdateDelay, updPtr,
			"advanced.updateDelay is the legacy setting, which this image no longer has: the connector refuses the whole config; remove it"})
	}
	if errs.p != nil {
		res.Kind, res.Configured = KindInvalid, res.Present
		res.Problems = append([]Problem{*errs.p}, res.Problems...)
		return res
	}
	if sealedWhole != "" {
		res.Kind, res.Configured = KindSealed, true
		res.Problems = append(res.Problems, Problem{ProblemSealed, sealedWhole, key + " is encrypted, so its effect is unknown"})
		return res
	}
	var sealedLeaves []Problem
	for _, p := range sealed {
		if p != "" {
			sealedLeaves = append(sealedLeaves, Problem{ProblemSealed, p, strings.TrimPrefix(strings.ReplaceAll(p, "/", "."), ".") + " is encrypted, so the schedule's effect is unknown"})
		}
	}
	if len(sealedLeaves) > 0 {
		res.Kind, res.Configured = KindSealed, true
		res.Problems = append(res.Problems, sealedLeaves...)
		return res
	}
	alternating := spec.Timezone != "" || spec.FastSyncStartTime != "" || spec.FastSyncStopTime != "" || spec.FastSyncEnabledDays != ""
	if u, ok := upd.(Encrypted); ok {
		_ = u
		res.Kind, res.Configured, res.Pointer, res.Present = KindSealed, true, updPtr, true
		res.Problems = append(res.Problems, Problem{ProblemSealed, updPtr, "advanced.updateDelay is encrypted, so its delay is unknown"})
		return res
	}
	var beside *Problem // the legacy delay beside a syncSchedule
	if u, _ := upd.(string); u != "" {
		// An old tag, which reads the legacy delay.
		// Present, so legacy-update-delay (docs/behaviour.md §5), though
		// not the schedule: a syncSchedule beside it makes the connector
		// refuse the config (the error below, or rule 1 for an
		// alternating one without syncFrequency), which is said first.
		beside = &Problem{ProblemUpdateDelay, updPtr,
			fmt.Sprintf("advanced.updateDelay %q is the legacy setting, which this image tag still reads, but %s images reject; beside a syncSchedule the connector refuses the config: remove it", u, updateDelayDropped(e))}
		if spec.SyncFrequency != "" {
			res.Kind, res.Configured = KindInvalid, true
			res.Problems = append(res.Problems, Problem{ProblemInvalid, updPtr, "validating schedule configuration: cannot specify both Sync Frequency and Update Delay"}, *beside)
			return res
		}
		if !alternating {
			return classifyUpdateDelay(e, tag, u, updPtr, res)
		}
	}
	if !alternating && spec.SyncFrequency == "" {
		// Absent, null, or a remnant whose values are all null or "".
		res.Kind, res.Known, res.Delay = KindDefault, true, DefaultFrequency
		res.Schedule = &Parsed{Frequency: DefaultFrequency}
		return res
	}
	if !alternating {
		if d, err := time.ParseDuration(spec.SyncFrequency); err == nil && d == 0 {
			res.Kind, res.Known, res.Schedule = KindZero, true, &Parsed{Spec: spec}
			if !contains(info.Enum, spec.SyncFrequency) {
				res.Problems = append(res.Problems, offEnum(key+".syncFrequency", res.Pointer+"/syncFrequency", spec.SyncFrequency, info.Enum, 0))
			}
			return res // the carve-out: not configured
		}
	}
	res.Configured = true
	p, prob := ParseSyncSchedule(spec)
	if prob != nil {
		prob.Pointer = res.Pointer + prob.Pointer
		res.Kind = KindInvalid
		res.Problems = append(res.Problems, *prob)
		if beside != nil {
			res.Problems = append(res.Problems, *beside)
		}
		return res
	}
	res.Schedule, res.Known = p, true
	if p.Alternating {
		res.Kind, res.Delay = KindAlternating, max(p.Frequency, SlowFrequency)
	} else {
		res.Kind, res.Delay = KindFixed, max(p.Frequency, 0)
	}
	if !contains(info.Enum, spec.SyncFrequency) {
		res.Problems = append(res.Problems, offEnum(key+".syncFrequency", res.Pointer+"/syncFrequency", spec.SyncFrequency, info.Enum, p.Frequency))
	}
	return res
}

// updateDelayDropped names the image tags that reject advanced.updateDelay.
func updateDelayDropped(e *Entry) string {
	if e.UpdateDelayBefore != "" {
		return e.UpdateDelayBefore + " and later"
	}
	return "current"
}

// classifyUpdateDelay reads advanced.updateDelay on a tag that still has
// it (and no syncFrequency beside it).
func classifyUpdateDelay(e *Entry, tag, v, ptr string, res Result) Result {
	res.Kind, res.Pointer, res.Present = KindUpdateDelay, ptr, true
	since := updateDelayDropped(e)
	d, err := time.ParseDuration(v)
	if err != nil {
		res.Kind, res.Configured = KindInvalid, true
		res.Problems = append(res.Problems, Problem{ProblemInvalid, ptr, fmt.Sprintf("could not parse updateDelay '%s': must be a valid Go duration string", v)})
		return res
	}
	res.Interval, res.Known, res.Configured = d, true, d != 0
	res.Delay = max(d, 0)
	res.Problems = append(res.Problems, Problem{ProblemUpdateDelay, ptr,
		fmt.Sprintf("advanced.updateDelay %q is the legacy setting, which this image tag still reads, but %s images reject; it counts as a connector schedule of %s", v, since, fmtDelay(res.Delay))})
	if !contains(LegacyUpdateDelayEnum, v) {
		res.Problems = append(res.Problems, offEnum("advanced.updateDelay", ptr, v, LegacyUpdateDelayEnum, d))
	}
	return res
}

// classifyInterval reads a file sink's interval (uploadInterval, a Go
// duration; upload_interval, ISO-8601), with the connectors' texts.
func classifyInterval(e *Entry, info FamilyInfo, fields []Field, res Result, miss func(string) string) Result {
	key := strings.TrimPrefix(info.Pointer, "/")
	var (
		errs  firstError
		val   any
		found bool
	)
	for _, f := range fields {
		if msg := miss(f.Key); msg != "" {
			errs.note("/"+escape(f.Key), msg)
			continue
		}
		if !strings.EqualFold(f.Key, key) || f.Value == nil {
			continue
		}
		at := "/" + escape(f.Key)
		if f.Key != key {
			res.KeyVariants = append(res.KeyVariants, at)
		}
		switch f.Value.(type) {
		case string, Encrypted:
			val, found, res.Pointer = f.Value, true, at
		default:
			res.Pointer = at
			errs.note(at, typeError(f.Value, fieldPath(e, key), "string"))
		}
	}
	if errs.p != nil {
		res.Kind, res.Present, res.Configured = KindInvalid, true, true
		res.Problems = append(res.Problems, *errs.p)
		return res
	}
	if x, ok := val.(Encrypted); ok {
		_ = x
		res.Kind, res.Present, res.Configured = KindSealed, true, true
		res.Problems = append(res.Problems, Problem{ProblemSealed, res.Pointer, key + " is encrypted, so its interval is unknown"})
		return res
	}
	s, _ := val.(string)
	if !e.EmptyParses && (!found || s == "") {
		res.Kind = KindInvalid
		if info.Required {
			res.Present = found
			res.Problems = append(res.Problems, Problem{ProblemInvalid, "", fmt.Sprintf("missing '%s'", key)})
			return res
		}
		res.Kind, res.Known = KindZero, true
		return res
	}
	res.Present, res.Configured = found, found
	var d time.Duration
	var err error
	if info.ISO8601 {
		d, err = ParseISO8601(s)
	} else if d, err = time.ParseDuration(s); err != nil {
		err = fmt.Errorf("parsing upload interval %q: %w", s, err)
	}
	if err != nil {
		res.Kind = KindInvalid
		res.Problems = append(res.Problems, Problem{ProblemInvalid, res.Pointer, err.Error()})
		return res
	}
	if len(info.Enum) > 0 && !contains(info.Enum, s) { // Classify set the tag's enum
		res.Problems = append(res.Problems, offEnum(key, res.Pointer, s, info.Enum, d))
	}
	res.Interval, res.Known, res.Delay = d, true, max(d, 0)
	res.Configured = d != 0
	if d <= 0 {
		res.Kind = KindZero
	} else {
		res.Kind = KindFileInterval
	}
	return res
}
