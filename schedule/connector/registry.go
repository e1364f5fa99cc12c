package connector

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Family is a kind of connector-side pacing.
type Family string

const (
	FamilySyncSchedule   Family = "syncSchedule"
	FamilyUploadInterval Family = "uploadInterval"
	FamilyUploadISO      Family = "upload_interval"
)

// FamilyInfo says where a family's schedule lives in the config and what
// its published schema allows.
type FamilyInfo struct {
	Pointer string   `json:"pointer"`
	Enum    []string `json:"enum,omitempty"`
	// EnumBefore is the shorter list that tags before an image's
	// EnumSince publish (docs/behaviour.md §4.1).
	EnumBefore []string `json:"enumBefore,omitempty"`
	Default    string   `json:"default,omitempty"`
	Required   bool     `json:"required,omitempty"`
	ISO8601    bool     `json:"iso8601,omitempty"`
	Zero       string   `json:"zero,omitempty"`
}

// SeedPart is one config value hashed into a connector's jitter seed.
type SeedPart struct {
	Pointer     string `json:"pointer"`
	LastSegment bool   `json:"lastSegment,omitempty"`
}

// Entry is one connector image.
type Entry struct {
	Image  string     `json:"image"`
	Family Family     `json:"family"`
	Seed   []SeedPart `json:"seed,omitempty"`
	// UpdateDelayBefore: tags before this one took /advanced/updateDelay
	// and did not know syncSchedule ("" when the image never did).
	UpdateDelayBefore string `json:"updateDelayBefore,omitempty"`
	// DeferralSince: the first tag that has the boilerplate deferral
	// (the connector turns its own delay off under a runtime schedule).
	DeferralSince string `json:"deferralSince,omitempty"`
	// Enum, if set, replaces the family's published values for this image.
	Enum []string `json:"enum,omitempty"`
	// EnumSince: the first tag whose published schema lists the family's
	// whole enum; older tags publish the family's EnumBefore ("" when the
	// image publishes Enum, or the family's enum, on every tag).
	EnumSince string `json:"enumSince,omitempty"`
	// ConfigStruct is the Go struct a file sink's config embeds for its
	// store (S3StoreConfig), which encoding/json's type errors name in
	// the field path (config.S3StoreConfig.uploadInterval).
	ConfigStruct string `json:"configStruct,omitempty"`
	// EmptyParses: the connector parses an empty or absent interval (and
	// fails on it) instead of reporting it missing: its config struct
	// does not list the key among the required ones
	// (filesink/store.go's AzureBlobConfig.Validate in estuary/connectors).
	EmptyParses bool `json:"emptyParses,omitempty"`
}

// Registry is the table of scheduling images.
type Registry struct {
	Families map[Family]FamilyInfo `json:"families"`
	Images   []Entry               `json:"images"`

	byImage map[string]int
	keysets map[Family]*keyset // near-miss keys by family (nearmiss.go)
}

//go:embed registry.json
var builtin []byte

// Builtin returns the registry shipped with schedtool.
func Builtin() *Registry {
	r, err := ParseRegistry(builtin)
	if err == nil {
		err = r.index()
	}
	if err != nil {
		panic("connector: builtin registry: " + err.Error())
	}
	return r
}

// ParseRegistry reads a registry document (unknown keys refused). Its
// images may name families of the registry it will extend.
func ParseRegistry(b []byte) (*Registry, error) {
	var r Registry
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.DisallowUnknownFields()
	if err := d.Decode(&r); err != nil {
		return nil, err
	}
	for i, e := range r.Images {
		if e.Image == "" {
			return nil, fmt.Errorf("image %d: missing image name", i)
		}
	}
	return &r, nil
}

// Extend merges another registry over r: families and images of the same
// name are replaced, new ones are added.
func (r *Registry) Extend(o *Registry) (*Registry, error) {
	out := &Registry{Families: map[Family]FamilyInfo{}}
	for k, v := range r.Families {
		out.Families[k] = v
	}
	for k, v := range o.Families {
		out.Families[k] = v
	}
	out.Images = append(out.Images, r.Images...)
	for _, e := range o.Images {
		replaced := false
		for i := range out.Images {
			if out.Images[i].Image == e.Image {
				out.Images[i], replaced = e, true
			}
		}
		if !replaced {
			out.Images = append(out.Images, e)
		}
	}
	return out, out.index()
}

func (r *Registry) index() error {
	r.byImage = map[string]int{}
	for f, info := range r.Families {
		if !strings.HasPrefix(info.Pointer, "/") {
			return fmt.Errorf("family %s: pointer %q must start with /", f, info.Pointer)
		}
		toks := PointerTokens(info.Pointer)
		if len(toks) == 0 || slices.Contains(toks, "") {
			return fmt.Errorf("family %s: pointer %q must name a key at each level (/syncSchedule, /advanced/x)", f, info.Pointer)
		}
	}
	r.keysets = nil
	keysets := map[Family]*keyset{}
	for f := range r.Families {
		keysets[f] = r.scheduleKeys(f)
	}
	r.keysets = keysets
	for i, e := range r.Images {
		if e.Image == "" {
			return fmt.Errorf("image %d: missing image name", i)
		}
		if _, ok := r.Families[e.Family]; !ok {
			return fmt.Errorf("image %s: unknown family %q", e.Image, e.Family)
		}
		if e.EnumSince != "" && !IsVersion(e.EnumSince) {
			return fmt.Errorf("image %s: enumSince %q is not a version tag (v4, v4.1)", e.Image, e.EnumSince)
		}
		r.byImage[e.Image] = i
	}
	return nil
}

// Lookup finds the entry of an image reference (name[:tag],
// name@sha256:... or name:tag@sha256:...), and returns the tag ("" for
// a digest alone or none).
func (r *Registry) Lookup(ref string) (*Entry, string, bool) {
	name, tag := SplitImage(ref)
	i, ok := r.byImage[name]
	if !ok {
		return nil, tag, false
	}
	return &r.Images[i], tag, true
}

// ConfigKeys are the top-level config keys that Classify reads for the
// image's family.
func (r *Registry) ConfigKeys(e *Entry) []string {
	key := strings.TrimPrefix(r.Family(e.Family).Pointer, "/")
	if i := strings.IndexByte(key, '/'); i >= 0 {
		key = key[:i]
	}
	if e.Family == FamilySyncSchedule {
		return []string{key, "advanced"}
	}
	return []string{key}
}

// AllConfigKeys are the top-level config keys any classification reads,
// plus the sops stanza.
func (r *Registry) AllConfigKeys() []string {
	seen := map[string]bool{"advanced": true, "sops": true}
	for i := range r.Images {
		for _, k := range r.ConfigKeys(&r.Images[i]) {
			seen[k] = true
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// EnumFor is the list of schedule values this tag of the image publishes
// in its config schema: what Flow's config encryption checks a plaintext
// config against (docs/behaviour.md §4.1). nil means the schema has no
// enum for the value (upload_interval).
func (r *Registry) EnumFor(e *Entry, tag string) []string {
	info := r.Family(e.Family)
	if e.Enum != nil {
		return e.Enum
	}
	if e.EnumSince != "" && info.EnumBefore != nil && TagBefore(tag, e.EnumSince) {
		return info.EnumBefore
	}
	return info.Enum
}

// Where says how a config reaches the control plane, which decides
// whether its schedule values must be in the image's published enum.
type Where int

const (
	// Plaintext: a catalog config without a sops stanza. Flow's config
	// encryption validates it against the connector's schema before a
	// draft publishes, and refuses an off-enum value.
	Plaintext Where = iota
	// Sealed: a config with a sops stanza (its overlay included), which
	// only the connector's own Validate judges.
	Sealed
	// Stored: a stored spec, which the control plane keeps sealed.
	Stored
)

// Publishable reports whether value, written as the image family's
// schedule value into a config that reaches the control plane as where,
// is one flowctl and the dashboard publish: any value in a sealed config
// or a stored spec, only the tag's published enum in a plaintext one.
// It does not judge whether the connector accepts the value.
func (r *Registry) Publishable(e *Entry, tag string, where Where, value string) bool {
	if where != Plaintext {
		return true
	}
	enum := r.EnumFor(e, tag)
	return enum == nil || slices.Contains(enum, value)
}

// Family returns the info of a family.
func (r *Registry) Family(f Family) FamilyInfo { return r.Families[f] }

// SplitImage splits an image reference (name[:tag], name@sha256:... or
// name:tag@sha256:..., a pinned one) into its name and tag: cut at '@'
// first (a digest's own ':' is not a tag's), then at the tag's ':' (past
// the last '/', so that a registry's port is not one either).
func SplitImage(ref string) (name, tag string) {
	if at := strings.IndexByte(ref, '@'); at >= 0 {
		ref = ref[:at]
	}
	slash := strings.LastIndexByte(ref, '/')
	if colon := strings.LastIndexByte(ref, ':'); colon > slash {
		return ref[:colon], ref[colon+1:]
	}
	return ref, ""
}

// TagBefore reports whether tag is a version older than since ("v2" is
// before "v3", "v3.1" is not). Tags that are not versions (dev, a digest,
// none) count as current: never before anything.
func TagBefore(tag, since string) bool {
	a, okA := parseVersion(tag)
	b, okB := parseVersion(since)
	if !okA || !okB {
		return false
	}
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y int
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return x < y
		}
	}
	return false
}

// IsVersion reports whether a tag is a version ("v3", "v3.1").
func IsVersion(tag string) bool {
	_, ok := parseVersion(tag)
	return ok
}

func parseVersion(s string) ([]int, bool) {
	s = strings.TrimPrefix(s, "v")
	if s == "" {
		return nil, false
	}
	var out []int
	for _, p := range strings.Split(s, ".") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

// AcceptsSyncSchedule reports whether this tag of the image takes the
// syncSchedule object (and refuses /advanced/updateDelay).
func (e *Entry) AcceptsSyncSchedule(tag string) bool {
	return e.UpdateDelayBefore == "" || !TagBefore(tag, e.UpdateDelayBefore)
}

// NewestTag is the newest tag the entry names (UpdateDelayBefore,
// DeferralSince, EnumSince): the tag an image upgrade moves a task to,
// past every limit the registry knows of ("" when it names none).
func (e *Entry) NewestTag() string {
	newest := ""
	for _, t := range []string{e.UpdateDelayBefore, e.DeferralSince, e.EnumSince} {
		if IsVersion(t) && (newest == "" || TagBefore(newest, t)) {
			newest = t
		}
	}
	return newest
}

// HasDeferral reports whether this tag defers its ack delay to a runtime
// schedule (the boilerplate shim is in the image).
func (e *Entry) HasDeferral(tag string) bool {
	if e.DeferralSince == "" {
		return false
	}
	if _, ok := parseVersion(tag); !ok {
		return false
	}
	return !TagBefore(tag, e.DeferralSince)
}
