// Package savedplan is migrate's saved plan (docs/behaviour.md §7, "Saved
// plans"): what a dry run would change, written to a file that is
// reviewed and later applied, the way terraform's plan -out and apply
// work. It is three things over migrate's own pipeline, and no checker
// of its own:
//
//   - a record (Writer, Recorder): the options in effect (the project
//     file's included, with its digest), the task set the selectors and
//     --limit chose, by name, and per group of files (or per stored-spec
//     row) each input's SHA-256 and the byte edits to make, never a whole
//     file; every path relative to the root;
//   - a comparison (Comparer): apply and show run migrate's planning
//     again on the current inputs with the plan's options and task set,
//     and a group (or row) is written, or shown, only where the
//     recomputation gives byte for byte the plan's edits for it;
//   - a renderer (Markdown) of the plan as a pull-request body, around
//     the diff migrate's own dry run prints.
//
// So apply never writes what migrate --write would not write now, nor
// anything that was not reviewed, whatever the plan file says.
//
// Not to be confused with package plan, which decides what migrating one
// materialization means: savedplan records the edits that migrate made of
// those decisions.
package savedplan

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/finding"
	"github.com/estuary/schedtool/internal/groupwrite"
	"github.com/estuary/schedtool/internal/paths"
	"github.com/estuary/schedtool/migrate"
	"github.com/estuary/schedtool/project"
)

// Format names a schedtool plan document; Version is the layout this
// schedtool reads and writes (2: paths relative to the root, options and
// task set recorded, records streamed).
const (
	Format  = "schedtool-plan"
	Version = 2
)

// Plan is a saved migration plan: its head, and, once read, the groups
// and rows it holds and what its tasks say (Account). Its task reports
// are streamed through, never all held.
type Plan struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Schedtool is the version of the schedtool that made the plan.
	Schedtool string  `json:"schedtool"`
	Options   Options `json:"options"`
	// Args are the PATHs migrate read, relative to the root.
	Args []string `json:"args"`

	// Read from the records and the tail of the document.
	Groups  []Group          `json:"-"`
	Dumps   []Dump           `json:"-"`
	TaskSet []string         `json:"-"`
	Summary *migrate.Summary `json:"-"`
	Digest  string           `json:"-"`
	Account Account          `json:"-"`
}

// Options are the options a plan was made with.
type Options struct {
	// Flags are the flags set on migrate's command line that shape the
	// plan (selectors, --limit, --absent, ...), by name, each with its
	// values (several for a repeated --name); a path among them (--root,
	// --connectors, --config) relative to the root.
	Flags map[string][]string `json:"flags,omitempty"`
	// Root is the root, relative to the directory migrate ran in ("."
	// when it ran in the root, ".." in a directory under it): apply and
	// show, run in the same directory of any checkout, find its root
	// there. Never absolute.
	Root string `json:"root"`
	// Project is the project file in effect, nil when none.
	Project *Project `json:"project,omitempty"`
}

// Project is the project file a plan was made with: where it is, its
// digest, and what in it shapes a migration.
type Project struct {
	File       string             `json:"file"` // relative to the root
	SHA256     string             `json:"sha256"`
	Root       string             `json:"root,omitempty"`
	Exclude    []string           `json:"exclude,omitempty"`
	Decisions  *project.Decisions `json:"decisions,omitempty"`
	Connectors string             `json:"connectors,omitempty"`
	Paths      []string           `json:"paths,omitempty"`
}

// Group is files written together.
type Group struct {
	Files []File `json:"files"` // in rename order
	// Refused says why migrate would not write the group; apply does not
	// either.
	Refused string `json:"refused,omitempty"`
}

// File is one catalog file of a group: its path relative to the root,
// the SHA-256 of the bytes read, the edits, and the SHA-256 of the
// result.
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
	Name string // relative to the root
	Rows []Row
}

// Row is one migrated row: its dump, its identity (catalog name,
// last_pub_id, line), the SHA-256 of the row as read (its spec within),
// the edits of the row's bytes, and the SHA-256 of the migrated row.
// Only the changed bytes are kept, so a config's plaintext values never
// enter the plan.
type Row struct {
	Dump      string `json:"dump"`
	Line      int    `json:"line"`
	Name      string `json:"catalog_name"`
	LastPubID string `json:"last_pub_id"`
	Size      int    `json:"size"`
	SHA256    string `json:"sha256"`
	Edits     []Edit `json:"edits"`
	Result    string `json:"result"`
}

// record is one line of a plan's records: a task's report, a group of
// files, or a migrated row.
type record struct {
	Task  *migrate.Task `json:"task,omitempty"`
	Group *Group        `json:"group,omitempty"`
	Row   *Row          `json:"row,omitempty"`
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

// digestKey begins the last field of the document; the digest is the
// SHA-256 of every byte before it.
const digestKey = "  \"digest\": \""

// tailRE is how a plan ends: its digest, and nothing after it.
var tailRE = regexp.MustCompile(`\n  "digest": "(sha256:[0-9a-f]{64})"\n}\n$`)

// Writer writes a plan document as its records come, hashing it as it
// goes: memory stays flat however many tasks a run reports.
type Writer struct {
	w     *bufio.Writer
	h     hash.Hash
	f     *os.File // the temp file, nil when writing to no file
	path  string
	n     int // records written
	err   error
	names []string // the task set
	seen  map[string]bool
	// Plan is the head written, its Digest set by Close.
	Plan *Plan
}

// NewWriter starts a plan document: to a temp file beside path (renamed
// over it by Close), or to nothing but its digest when path is "" (the
// Markdown of migrate -o markdown names the digest).
func NewWriter(path string, head *Plan) (*Writer, error) {
	head.Format, head.Version = Format, Version
	w := &Writer{h: sha256.New(), path: path, Plan: head, seen: map[string]bool{}}
	var dst io.Writer = io.Discard
	if path != "" {
		if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is a symlink or not a regular file; schedtool does not write through one", path)
		}
		dir, base := filepath.Split(path)
		if dir == "" {
			dir = "."
		}
		f, err := groupwrite.CreateTemp(dir, base, 0o600)
		if err != nil {
			return nil, err
		}
		w.f, dst = f, f
	}
	w.w = bufio.NewWriterSize(io.MultiWriter(dst, w.h), 64<<10)
	b, err := json.MarshalIndent(head, "", "  ")
	if err != nil {
		w.Abort()
		return nil, err
	}
	// The head's fields, then the records array.
	w.w.Write(b[:len(b)-2])
	w.w.WriteString(",\n  \"records\": [")
	return w, nil
}

func (w *Writer) put(r record) {
	if w.err != nil {
		return
	}
	b, err := json.Marshal(r)
	if err != nil {
		w.err = err
		return
	}
	if w.n > 0 {
		w.w.WriteByte(',')
	}
	w.n++
	w.w.WriteString("\n    ")
	w.w.Write(b)
}

// Close ends the document with the task set, the summary and the
// digest, and puts it in place.
func (w *Writer) Close(sum *migrate.Summary) error {
	if w.err != nil {
		w.Abort()
		return w.err
	}
	set, err := json.Marshal(w.names)
	if err != nil {
		w.Abort()
		return err
	}
	s, err := json.Marshal(sum)
	if err != nil {
		w.Abort()
		return err
	}
	fmt.Fprintf(w.w, "\n  ],\n  \"taskSet\": %s,\n  \"summary\": %s,\n", set, s)
	if err := w.w.Flush(); err != nil {
		w.Abort()
		return err
	}
	w.Plan.Digest = "sha256:" + hex.EncodeToString(w.h.Sum(nil))
	w.Plan.Summary, w.Plan.TaskSet = sum, w.names
	if w.f == nil {
		return nil
	}
	tmp := w.f.Name()
	if _, err := fmt.Fprintf(w.f, "%s%s\"\n}\n", digestKey, w.Plan.Digest); err != nil {
		w.Abort()
		return err
	}
	if err := groupwrite.Fill(w.f, nil); err != nil {
		groupwrite.DropTemp(tmp)
		return err
	}
	if err := os.Rename(tmp, w.path); err != nil {
		groupwrite.DropTemp(tmp)
		return err
	}
	groupwrite.ForgetTemp(tmp)
	return nil
}

// Abort drops what was written.
func (w *Writer) Abort() {
	if w.f != nil {
		tmp := w.f.Name()
		w.f.Close()
		groupwrite.DropTemp(tmp)
		w.f = nil
	}
}

// Error is a plan that cannot be applied or shown at all.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Open reads the plan at path: a regular file no larger than max
// (--max-file-size), its digest checked over a first pass, its records
// then streamed (Read).
func Open(path, self string, max int64) (*Plan, error) {
	f, st, err := paths.OpenRegular(path)
	if err == nil && st.Size() > max {
		f.Close()
		err = fmt.Errorf("file is %s, over the limit of %s (see --max-file-size)", paths.FormatSize(st.Size()), paths.FormatSize(max))
	}
	if err != nil {
		return nil, &Error{fmt.Sprintf("%s: %s", path, catalog.Describe(err))}
	}
	defer f.Close()
	size := st.Size()
	// The tail: the digest, and that nothing follows it.
	tail := make([]byte, min(size, 200))
	if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil && !errors.Is(err, io.EOF) {
		return nil, &Error{fmt.Sprintf("%s: %v", path, err)}
	}
	head := make([]byte, min(size, 512))
	f.ReadAt(head, 0)
	if err := checkHead(path, head, self); err != nil {
		return nil, err
	}
	m := tailRE.FindSubmatchIndex(tail)
	if m == nil {
		return nil, &Error{fmt.Sprintf("%s: the plan has no digest at its end: refused (it was edited by hand, or cut short); plan again", path)}
	}
	got := string(tail[m[2]:m[3]])
	body := size - int64(len(tail)) + int64(m[0]) + 1 // up to the digest's line
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, body)); err != nil {
		return nil, &Error{fmt.Sprintf("%s: %v", path, err)}
	}
	if want := "sha256:" + hex.EncodeToString(h.Sum(nil)); got != want {
		return nil, &Error{fmt.Sprintf("%s: the plan's content does not match its digest (%s, its content hashes to %s): it was edited since migrate wrote it; refused: plan again and review that", path, got, want)}
	}
	p, err := decode(path, bufio.NewReaderSize(io.NewSectionReader(f, 0, size), 64<<10))
	if err != nil {
		return nil, err
	}
	p.Digest = got
	return p, nil
}

// Parse is Open of the bytes b read from path.
func Parse(path string, b []byte, self string) (*Plan, error) {
	if err := checkHead(path, b[:min(len(b), 512)], self); err != nil {
		return nil, err
	}
	m := tailRE.FindSubmatchIndex(b)
	if m == nil {
		return nil, &Error{fmt.Sprintf("%s: the plan has no digest at its end: refused (it was edited by hand, or cut short); plan again", path)}
	}
	got := string(b[m[2]:m[3]])
	if want := "sha256:" + Hash(b[:m[0]+1]); got != want {
		return nil, &Error{fmt.Sprintf("%s: the plan's content does not match its digest (%s, its content hashes to %s): it was edited since migrate wrote it; refused: plan again and review that", path, got, want)}
	}
	p, err := decode(path, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	p.Digest = got
	return p, nil
}

var (
	formatRE  = regexp.MustCompile(`^\{\s*"format":\s*"([^"]*)",\s*"version":\s*(-?\d+),\s*"schedtool":\s*("(?:[^"\\]|\\.)*")`)
	versionRE = regexp.MustCompile(`"version":\s*(-?\d+)`)
)

// checkHead refuses what is not a schedtool plan, or one of another
// layout, or one made by a newer schedtool, from the document's start.
func checkHead(path string, b []byte, self string) error {
	m := formatRE.FindSubmatch(b)
	if m == nil || string(m[1]) != Format {
		if !bytes.Contains(b, []byte(`"format": "`+Format+`"`)) {
			return &Error{fmt.Sprintf("%s: not a schedtool plan (migrate --plan FILE writes one)", path)}
		}
		m = nil
	}
	v, made := 0, "?"
	if m != nil {
		v, _ = strconv.Atoi(string(m[2]))
		json.Unmarshal(m[3], &made)
	} else if vm := versionRE.FindSubmatch(b); vm != nil {
		v, _ = strconv.Atoi(string(vm[1]))
	}
	switch {
	case v == 1:
		return &Error{fmt.Sprintf("%s: a plan of layout version 1, made by schedtool %s, which named files by the paths of the checkout it was made in; this schedtool (%s) applies only plans whose paths are relative to the root (version %d): plan again", path, made, self, Version)}
	case v != Version:
		return &Error{fmt.Sprintf("%s: a plan of layout version %d, made by schedtool %s; this schedtool (%s) reads version %d: apply it with the schedtool that made it, or plan again", path, v, made, self, Version)}
	case newer(made, self):
		return &Error{fmt.Sprintf("%s: made by schedtool %s, newer than this one (%s): apply it with that schedtool or a newer one, or plan again", path, made, self)}
	}
	return nil
}

// decode reads a plan document as a stream: its head, then each record
// (tasks into the Account, groups and rows kept), then its tail.
func decode(path string, r io.Reader) (*Plan, error) {
	bad := func(err error) error { return &Error{fmt.Sprintf("%s: %v", path, err)} }
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, bad(errors.New("not a JSON object"))
	}
	p := &Plan{}
	dumps := map[string]int{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, bad(err)
		}
		key, _ := t.(string)
		var dst any
		switch key {
		case "format":
			dst = &p.Format
		case "version":
			dst = &p.Version
		case "schedtool":
			dst = &p.Schedtool
		case "options":
			dst = &p.Options
		case "args":
			dst = &p.Args
		case "taskSet":
			dst = &p.TaskSet
		case "summary":
			dst = &p.Summary
		case "digest":
			dst = new(string)
		case "records":
			if t, err := dec.Token(); err != nil || t != json.Delim('[') {
				return nil, bad(errors.New("records: not an array"))
			}
			for dec.More() {
				var rec record
				if err := dec.Decode(&rec); err != nil {
					return nil, bad(err)
				}
				switch {
				case rec.Task != nil:
					p.Account.add(rec.Task)
				case rec.Group != nil:
					p.Groups = append(p.Groups, *rec.Group)
				case rec.Row != nil:
					i, ok := dumps[rec.Row.Dump]
					if !ok {
						i = len(p.Dumps)
						dumps[rec.Row.Dump] = i
						p.Dumps = append(p.Dumps, Dump{Name: rec.Row.Dump})
					}
					p.Dumps[i].Rows = append(p.Dumps[i].Rows, *rec.Row)
				}
			}
			if _, err := dec.Token(); err != nil {
				return nil, bad(err)
			}
			continue
		default:
			return nil, bad(fmt.Errorf("unknown field %q", key))
		}
		if err := dec.Decode(dst); err != nil {
			return nil, bad(err)
		}
	}
	if p.Format != Format || p.Version != Version {
		return nil, &Error{fmt.Sprintf("%s: not a schedtool plan of version %d", path, Version)}
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

// Write writes p as a plan document at path, its digest computed anew:
// its groups, rows and task set, not its task reports (a plan read keeps
// only their Account). A digest is no signature: anyone can write a plan
// this way, and apply trusts none of it for safety.
func (p *Plan) Write(path string) error {
	head := *p
	w, err := NewWriter(path, &head)
	if err != nil {
		return err
	}
	for gi := range p.Groups {
		w.put(record{Group: &p.Groups[gi]})
	}
	for di := range p.Dumps {
		for ri := range p.Dumps[di].Rows {
			w.put(record{Row: &p.Dumps[di].Rows[ri]})
		}
	}
	w.names = p.TaskSet
	return w.Close(p.Summary)
}
