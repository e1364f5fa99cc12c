// Package savedplan is migrate's saved plan (docs/behaviour.md §7, "Saved
// plans"): what a dry run would change, written to a file that is
// reviewed and later applied exactly, the way terraform's plan -out and
// apply work. A plan holds, per group of files (or per stored-spec row),
// each input's SHA-256 and the byte edits to make, never a whole file;
// apply checks every input against its hash and writes the edits through
// the same group writer as migrate --write, recomputing nothing.
//
// Not to be confused with package plan, which decides what migrating one
// materialization means: savedplan records the edits that migrate made of
// those decisions.
package savedplan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/internal/groupwrite"
	"github.com/estuary/schedtool/internal/paths"
	"github.com/estuary/schedtool/migrate"
)

// Format names a schedtool plan document; Version is the newest layout
// this schedtool reads and writes.
const (
	Format  = "schedtool-plan"
	Version = 1
)

// Plan is a saved migration plan.
type Plan struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Schedtool is the version of the schedtool that made the plan.
	Schedtool string `json:"schedtool"`
	// Args are the PATHs migrate read, as given, and Flags every flag set
	// on its command line (--plan aside), by name.
	Args  []string          `json:"args"`
	Flags map[string]string `json:"flags,omitempty"`
	// Roots are the directories the inputs' references stay inside.
	Roots []string `json:"roots,omitempty"`
	// Groups are the groups of changed catalog files, each written all or
	// nothing, in the order migrate --write would write them.
	Groups []Group `json:"groups,omitempty"`
	// Dumps are the stored-spec dumps with migrated rows.
	Dumps []Dump `json:"dumps,omitempty"`
	// Tasks is every materialization's report: action, reason, model
	// schedule, behaviour changes, verify verdict.
	Tasks   []migrate.Task   `json:"tasks"`
	Summary *migrate.Summary `json:"summary,omitempty"`
	// Digest is the SHA-256 of the document with this field empty: a plan
	// edited by hand is refused.
	Digest string `json:"digest"`
}

// Group is files written together.
type Group struct {
	Files []File `json:"files"` // in rename order
	// Refused says why migrate would not write the group; apply does not
	// either.
	Refused string `json:"refused,omitempty"`
}

// File is one catalog file of a group: its identity (the path, as
// migrate displayed and opened it), the SHA-256 of the bytes read, the
// edits, and the SHA-256 of the result.
type File struct {
	Path   string   `json:"path"`
	Size   int      `json:"size"`
	SHA256 string   `json:"sha256"`
	Edits  []Edit   `json:"edits,omitempty"`
	Result string   `json:"result,omitempty"` // the SHA-256 after the edits
	Tasks  []string `json:"tasks,omitempty"`
	// Models and Zeroes are the tasks whose model schedule the file adds
	// and whose connector it zeroes (why the group has its order).
	Models []string `json:"models,omitempty"`
	Zeroes []string `json:"zeroes,omitempty"`
}

// Edit replaces the bytes [Start, End) of an input by New (NewBase64 when
// they are not UTF-8).
type Edit struct {
	Line      int    `json:"line"` // of Start, in the input (1-based), for people
	Start     int    `json:"start"`
	End       int    `json:"end"`
	New       string `json:"new"`
	NewBase64 []byte `json:"newBase64,omitempty"`
}

// Dump is one stored-spec dump's migrated rows.
type Dump struct {
	Name string `json:"name"` // the dump as migrate named it
	Rows []Row  `json:"rows"`
}

// Row is one migrated row: its identity (catalog name, last_pub_id, line),
// the SHA-256 of the row as read (its spec within), the edits of the row's
// bytes, and the SHA-256 of the migrated row. Only the changed bytes are
// kept, so a config's plaintext values never enter the plan.
type Row struct {
	Line      int    `json:"line"`
	Name      string `json:"catalog_name"`
	LastPubID string `json:"last_pub_id"`
	Size      int    `json:"size"`
	SHA256    string `json:"sha256"`
	Edits     []Edit `json:"edits"`
	Result    string `json:"result"`
	// SpecStart and SpecEnd are where the row's spec is in it (for the
	// publishable tree of apply --out DIR).
	SpecStart int `json:"spec_start"`
	SpecEnd   int `json:"spec_end"`
}

// Hash is the SHA-256 of b in hex.
func Hash(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func toEdits(old []byte, es []finding.TextEdit) []Edit {
	out := make([]Edit, len(es))
	for i, e := range es {
		out[i] = Edit{Line: 1 + bytes.Count(old[:min(max(e.Start, 0), len(old))], []byte{'\n'}), Start: e.Start, End: e.End}
		if utf8.Valid(e.NewText) {
			out[i].New = string(e.NewText)
		} else {
			out[i].NewBase64 = e.NewText
		}
	}
	return out
}

func (e Edit) text() []byte {
	if e.NewBase64 != nil {
		return e.NewBase64
	}
	return []byte(e.New)
}

// textEdits are the edits as migrate's diff takes them.
func textEdits(path string, es []Edit) []finding.TextEdit {
	out := make([]finding.TextEdit, len(es))
	for i, e := range es {
		out[i] = finding.TextEdit{File: path, Start: e.Start, End: e.End, NewText: e.text()}
	}
	return out
}

// Patch applies edits (sorted, not overlapping) to old. An edit outside
// old, or out of order, is an error: the plan does not fit these bytes.
func Patch(old []byte, es []Edit) ([]byte, error) {
	var out []byte
	at := 0
	for _, e := range es {
		if e.Start < at || e.End < e.Start || e.End > len(old) {
			return nil, fmt.Errorf("edit [%d, %d) does not fit a file of %d bytes", e.Start, e.End, len(old))
		}
		out = append(out, old[at:e.Start]...)
		out = append(out, e.text()...)
		at = e.End
	}
	return append(out, old[at:]...), nil
}

// digestKey is the digest's field as the document writes it; the digest
// is the SHA-256 of the document with its value empty.
const digestKey = `"digest": "`

// Marshal is the plan's document, its digest set.
func (p *Plan) Marshal() ([]byte, error) {
	p.Digest = ""
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, err
	}
	b = append(b, '\n')
	i := bytes.LastIndex(b, []byte(digestKey+`"`))
	if i < 0 {
		return nil, errors.New("plan: no digest field")
	}
	p.Digest = "sha256:" + Hash(b)
	at := i + len(digestKey)
	return append(append(append([]byte(nil), b[:at]...), p.Digest...), b[at:]...), nil
}

// Write writes the plan to path, readable and writable by its owner only
// (0600: its edits are parts of the inputs), atomically: a temp file
// beside it, renamed over it.
func (p *Plan) Write(path string) error {
	b, err := p.Marshal()
	if err != nil {
		return err
	}
	if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("%s is a symlink or not a regular file; schedtool does not write through one", path)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := groupwrite.CreateTemp(dir, base, 0o600)
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err := groupwrite.Fill(f, b); err != nil {
		groupwrite.DropTemp(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		groupwrite.DropTemp(tmp)
		return err
	}
	groupwrite.ForgetTemp(tmp)
	return nil
}

// Error is a plan that cannot be applied or shown at all.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Read reads a plan and refuses one that is not a schedtool plan, was
// made by a newer schedtool (its layout version, or its schedtool
// version against self), or was edited since it was written (its digest).
//
// Only a regular file no larger than max is read (catalog.ReadRegular):
// a FIFO, a device (/dev/zero) or a directory is refused before it is
// read, never waited on or read without end.
func Read(path, self string, max int64) (*Plan, error) {
	b, err := ReadFile(path, max)
	if err != nil {
		return nil, err
	}
	return Parse(path, b, self)
}

// ReadFile reads a plan file's bytes as Read does: a regular file no
// larger than max (--max-file-size).
func ReadFile(path string, max int64) ([]byte, error) {
	b, err := paths.ReadRegular(path, max, "--max-file-size")
	if err != nil {
		return nil, &Error{fmt.Sprintf("%s: %s", path, catalog.Describe(err))}
	}
	return b, nil
}

// Parse is Read of the bytes b read from path.
func Parse(path string, b []byte, self string) (*Plan, error) {
	var head struct {
		Format    string `json:"format"`
		Version   int    `json:"version"`
		Schedtool string `json:"schedtool"`
	}
	if err := json.Unmarshal(b, &head); err != nil || head.Format != Format {
		return nil, &Error{fmt.Sprintf("%s: not a schedtool plan (migrate --plan FILE writes one)", path)}
	}
	if head.Version > Version || head.Version < 1 {
		return nil, &Error{fmt.Sprintf("%s: a plan of layout version %d, made by schedtool %s; this schedtool (%s) reads version %d: apply it with the schedtool that made it, or plan again", path, head.Version, head.Schedtool, self, Version)}
	}
	if newer(head.Schedtool, self) {
		return nil, &Error{fmt.Sprintf("%s: made by schedtool %s, newer than this one (%s): apply it with that schedtool or a newer one, or plan again", path, head.Schedtool, self)}
	}
	i := bytes.LastIndex(b, []byte(digestKey))
	if i < 0 {
		return nil, &Error{fmt.Sprintf("%s: the plan has no digest: refused (it was edited by hand, or cut short); plan again", path)}
	}
	at := i + len(digestKey)
	end := bytes.IndexByte(b[at:], '"')
	if end < 0 {
		return nil, &Error{fmt.Sprintf("%s: the plan's digest is cut short: refused; plan again", path)}
	}
	got := string(b[at : at+end])
	blank := append(append([]byte(nil), b[:at]...), b[at+end:]...)
	if want := "sha256:" + Hash(blank); got != want {
		return nil, &Error{fmt.Sprintf("%s: the plan's content does not match its digest (%s, its content hashes to %s): it was edited since migrate wrote it; refused: plan again and review that", path, got, want)}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	p := &Plan{}
	if err := dec.Decode(p); err != nil {
		return nil, &Error{fmt.Sprintf("%s: %v", path, err)}
	}
	return p, nil
}

// newer reports whether version a is a release newer than b (vX.Y.Z);
// a development build compares as no release.
func newer(a, b string) bool {
	va, ok := semver(a)
	if !ok {
		return false
	}
	vb, ok := semver(b)
	if !ok {
		return false
	}
	for i := range va {
		if va[i] != vb[i] {
			return va[i] > vb[i]
		}
	}
	return false
}

func semver(v string) ([3]int, bool) {
	var out [3]int
	v, ok := strings.CutPrefix(v, "v")
	if !ok {
		return out, false
	}
	v, _, _ = strings.Cut(v, "-")
	v, _, _ = strings.Cut(v, "+")
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return out, false
	}
	for i, s := range parts {
		n, err := strconv.Atoi(s)
		if err != nil {
			return out, false
		}
		out[i] = n
	}
	return out, true
}
