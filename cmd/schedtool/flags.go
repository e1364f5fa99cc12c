package main

import (
	"fmt"
	"math"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// sizeValue is a byte size flag: raw bytes or a number with a unit
// (KiB, MiB, GiB; kB, MB, GB). Zero and negative sizes are refused.
type sizeValue struct {
	n   *int64
	max int64
}

var sizeUnits = []struct {
	suffix string
	mult   int64
}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"kB", 1000}, {"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000}, {"B", 1}}

func (s *sizeValue) String() string { return strconv.FormatInt(*s.n, 10) }
func (s *sizeValue) Type() string   { return "size" }

func (s *sizeValue) Set(v string) error {
	n, err := parseSize(v, s.max)
	if err != nil {
		return err
	}
	*s.n = n
	return nil
}

// parseSize reads "64MiB", "512KiB", "1048576" or "1.5GiB".
func parseSize(v string, max int64) (int64, error) {
	t := strings.TrimSpace(v)
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a size: give bytes, or a number with KiB, MiB or GiB (64MiB)", v)
	}
	b := f * float64(mult)
	if b < 1 {
		return 0, fmt.Errorf("%q: a size must be at least 1 byte", v)
	}
	if b > float64(max) {
		return 0, fmt.Errorf("%q: a size must be at most %d bytes", v, max)
	}
	return int64(b), nil
}

// durationValue is a duration flag: a Go duration (90s, 1m30s, 500ms)
// or a bare number of seconds. Zero is allowed (no limit); a negative
// duration is refused.
type durationValue struct{ d *time.Duration }

func (d *durationValue) String() string { return d.d.String() }
func (d *durationValue) Type() string   { return "duration" }

func (d *durationValue) Set(v string) error {
	t := strings.TrimSpace(v)
	n, err := time.ParseDuration(t)
	if err != nil {
		f, ferr := strconv.ParseFloat(t, 64)
		if ferr != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > math.MaxInt64/float64(time.Second) {
			return fmt.Errorf("%q is not a duration: give one with a unit (60s, 2m, 500ms), or a number of seconds", v)
		}
		n = time.Duration(f * float64(time.Second))
	}
	if n < 0 {
		return fmt.Errorf("%q: a duration cannot be negative (0 means no limit)", v)
	}
	*d.d = n
	return nil
}

// The instants and years schedtool reasons about: the tz database
// describes zones from 1970, and nothing is scheduled centuries ahead.
const minYear, maxYear = 1970, 2199

// parseAt reads --at: an RFC 3339 instant from minYear to maxYear;
// empty means now.
func parseAt(at string) (time.Time, error) {
	if at == "" {
		return time.Now(), nil
	}
	when, err := time.Parse(time.RFC3339, at)
	if err != nil {
		return time.Time{}, &usageError{fmt.Sprintf("--at %q: not an RFC 3339 instant (2026-01-05T08:00:00Z)", at)}
	}
	if y := when.UTC().Year(); y < minYear || y > maxYear {
		return time.Time{}, &usageError{fmt.Sprintf("--at %s: give an instant from %d to %d", at, minYear, maxYear)}
	}
	return when, nil
}

// build is what the build info says of the binary: the module version
// ("(devel)" for a build from a checkout), the VCS revision (cut to 12
// digits) and time, whether the tree was modified, and the Go version.
// ok is false without build info.
type build struct {
	version, rev, at, goVersion string
	modified, ok                bool
}

func buildInfo() build {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return build{}
	}
	b := build{version: bi.Main.Version, goVersion: bi.GoVersion, ok: true}
	if b.version == "" {
		b.version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.rev = s.Value[:min(12, len(s.Value))]
		case "vcs.time":
			b.at = s.Value
		case "vcs.modified":
			b.modified = s.Value == "true"
		}
	}
	return b
}

// versionString is the module version and VCS revision of the binary,
// from its build info; -ldflags "-X main.version=..." overrides it.
func versionString() string {
	b := buildInfo()
	if version != "dev" || !b.ok {
		return version
	}
	if b.rev == "" {
		return b.version + " (no VCS revision in the build info)"
	}
	v := b.version + ", revision " + b.rev
	if b.at != "" {
		v += " of " + b.at
	}
	if b.modified {
		v += ", modified"
	}
	return v + ", " + b.goVersion
}

// toolVersion is the version a machine document carries (SARIF's
// driver.version): -X main.version when set, else the build info's
// module version with its VCS revision (v1.2.0, or (devel)+0123456789ab,
// .dirty when modified), "dev" without build info.
func toolVersion() string {
	b := buildInfo()
	if version != "dev" || !b.ok {
		return version
	}
	if b.version != "(devel)" {
		return b.version // a tagged module version names its revision
	}
	v := b.version
	if b.rev != "" {
		v += "+" + b.rev
	}
	if b.modified {
		v += ".dirty"
	}
	return v
}

// onceValue is a string flag that may be given once: the -o of the
// commands that write one document a run. A second -o is refused rather
// than silently replacing the first (census -o json=FILE -o table would
// otherwise write no file); validate alone takes several (outputsValue).
type onceValue struct {
	s    *string
	set  bool
	hint string // how to get several formats
}

func newOnce(p *string, def, hint string) *onceValue {
	*p = def
	return &onceValue{s: p, hint: hint}
}

func (o *onceValue) String() string { return *o.s }
func (o *onceValue) Type() string   { return "string" }

func (o *onceValue) Set(v string) error {
	if o.set {
		return fmt.Errorf("given twice (%s, then %s): this command writes one format a run; %s", *o.s, v, o.hint)
	}
	*o.s, o.set = v, true
	return nil
}
