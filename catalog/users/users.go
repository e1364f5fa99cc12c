package users

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/input"
	"github.com/estuary/schedtool/catalog/sniff"
	"github.com/estuary/schedtool/internal/paths"
)

// Holder is a user of a config file that a run does not migrate together
// with the file's other users: while it is there, the file is not changed
// (zeroing it would leave the holder without pacing). Cause says why it
// is not migrated with them; migrate says it in words (users hold no
// policy text).
type Holder struct {
	Name  string // the task; "" for a source that could not be read or parsed, or a root
	Where string // file:line of the reference, the source's file, or the root
	Cause Cause
	// Detail is what the cause needs to be told: the reason a reference
	// was refused (CauseRefused), the kind of task (CauseOtherKind), the
	// reference as read (CauseNamedOnly), the error of the root
	// (CauseRootUnsearchable), or what is wrong with the source
	// (CauseUnreadable, CauseUnparsed).
	Detail string
	// Named is the name of the file the reference or the source's text
	// holds (CauseNamedOnly, CauseUnparsed).
	Named string
}

// Cause is why a user of a config file is left out of a run that reads
// the file's other users.
type Cause int

const (
	// CauseRefused: the task's reference to the file was refused (it
	// escapes its root, say); Detail says why.
	CauseRefused Cause = iota + 1
	// CauseOtherKind: a capture or a derivation, which is never
	// migrated; Detail is its kind.
	CauseOtherKind
	// CauseDuplicated: a materialization defined more than once in one
	// catalog, none of whose definitions is migrated.
	CauseDuplicated
	// CauseNotSelected: a materialization the selection does not pick.
	CauseNotSelected
	// CauseExcluded: a materialization in a source the project file
	// excludes.
	CauseExcluded
	// CauseHidden: a materialization under the PATHs given, in a source
	// they do not read (a hidden directory not imported by one read).
	CauseHidden
	// CauseNotUnderPaths: a materialization outside the PATHs given.
	CauseNotUnderPaths
	// CauseNamedOnly: a materialization whose reference names no file
	// there, but holds the file's name (Named); Detail is the reference
	// as read.
	CauseNamedOnly
	// CauseRootUnsearchable: the root cannot be searched whole (Where),
	// so any user may hide in it; Detail is the error.
	CauseRootUnsearchable
	// CauseUnreadable: a catalog source that cannot be read (Where): it
	// might use any config file. Detail is what is wrong with it.
	CauseUnreadable
	// CauseUnparsed: a catalog source that cannot be parsed (or is not
	// read) and whose text holds the file's name (Named). Detail is what
	// is wrong with it.
	CauseUnparsed
	// CauseOtherPath: a materialization this run reads by another path
	// of its source (a symlink to it, a hard link), from whose directory
	// its reference names another file; Flow, given this path, reads
	// this one.
	CauseOtherPath
)

// Unread is a catalog source that cannot be read or parsed, or is not
// read, and the config files it holds back (by their display paths).
type Unread struct {
	File  string // the source, for display
	Why   string // what is wrong with it ("does not parse: 8:1: ...")
	Holds []string
}

// less orders holders by task, then place, then cause: a stable order
// (migrate orders them by what it says).
func (h Holder) less(o Holder) bool {
	if h.Name != o.Name {
		return h.Name < o.Name
	}
	if h.Where != o.Where {
		return h.Where < o.Where
	}
	if h.Cause != o.Cause {
		return h.Cause < o.Cause
	}
	return h.Detail+"\x00"+h.Named < o.Detail+"\x00"+o.Named
}

// Users finds, for each config file of cat, its users that are not among
// cat's materializations. The users of a file are every task under the
// roots of the inputs that references it (docs/behaviour.md §7): every catalog source
// under each root is read, imports followed, whatever the PATHs and the
// selectors chose, and references are compared by file identity (so every
// spelling, symlink and hard link of the file counts). Captures, and
// references refused as escaping a root (their target stat'ed, never
// read), are users too. A source under a root that cannot be read or
// parsed might use any config file: it holds back each one whose name
// (the base name of any of its paths under the root) its bytes contain,
// escapes decoded, and every one when it cannot be read at all; unread
// lists each such source with the files it holds back.
//
// The roots are read once, whatever the number of tasks.
func Users(inputs []catalog.Input, cat *catalog.Catalog, opts catalog.Options) (holders map[string][]Holder, unread []Unread) {
	if cat == nil || len(cat.Configs) == 0 {
		return nil, nil
	}
	ids := map[paths.FileID]string{}
	for p := range cat.Configs {
		if id, ok := paths.Identify(p); ok {
			ids[id] = p
		}
	}
	type key struct {
		name string
		src  any
	}
	known := map[key]bool{}
	for _, m := range cat.Materializations {
		known[key{m.Name, paths.Key(m.Source.File)}] = true
	}
	holders = map[string][]Holder{}
	type seenKey struct {
		path string
		h    Holder
	}
	seen := map[seenKey]bool{}
	add := func(p string, h Holder) {
		if !seen[seenKey{p, h}] {
			seen[seenKey{p, h}] = true
			holders[p] = append(holders[p], h)
		}
	}
	names := map[paths.FileID][]string{}
	for id, p := range ids {
		names[id] = []string{filepath.Base(p)}
		if real, err := filepath.EvalSymlinks(p); err == nil && filepath.Base(real) != filepath.Base(p) {
			names[id] = append(names[id], filepath.Base(real)) // named by a symlink: the file's own name too
		}
	}
	read := map[any]bool{}
	for _, f := range cat.Files {
		read[paths.Key(f)] = true
	}
	// A run over whole roots with no selector has read every source
	// already: its own catalog is the whole one.
	walked, outside, whole := walkRoots(inputs, ids, read, opts, names, add)
	covered := opts.Select == nil && opts.Exclude == nil && whole
	full := cat
	all := opts
	all.Select, all.Stdin, all.Limits.Expanded, all.Exclude = nil, nil, nil, nil
	if !covered {
		full = catalog.Load(walked, all)
	}
	// The references of sources read again by another path (aliasRefs)
	// are users too, unless the same task names the same file as read.
	refs := full.Refs
	primary := map[key]bool{}
	for _, r := range refs {
		if r.HasID {
			primary[key{r.Name, r.ID}] = true
		}
	}
	aliases := aliasRefs(walked, full, all)
	for i, r := range append(refs[:len(refs):len(refs)], aliases...) {
		alias := i >= len(refs)
		if alias && (!r.HasID || primary[key{r.Name, r.ID}]) {
			continue // no other file than read, or none (said of the first read)
		}
		if !r.HasID {
			// No file there to compare: a reference that holds a config
			// file's name (as Flow reads it) might still mean it.
			for id, p := range ids {
				for _, n := range names[id] {
					if containsFold(r.Path, n) {
						add(p, Holder{Name: r.Name, Where: fmt.Sprintf("%s:%d", paths.Display(r.File), r.Line), Cause: CauseNamedOnly, Detail: r.Path, Named: n})
						break
					}
				}
			}
			continue
		}
		p, ok := ids[r.ID]
		if !ok {
			continue
		}
		h := Holder{Name: r.Name, Where: fmt.Sprintf("%s:%d", paths.Display(r.File), r.Line)}
		switch {
		case r.Refused != "":
			h.Cause, h.Detail = CauseRefused, r.Refused
		case r.Kind != "materialization":
			h.Cause, h.Detail = CauseOtherKind, r.Kind
		case full.Duplicated[r.Name] || cat.Duplicated[r.Name]:
			h.Cause = CauseDuplicated
		case known[key{r.Name, paths.Key(r.File)}] && alias:
			h.Cause = CauseOtherPath
		case known[key{r.Name, paths.Key(r.File)}]:
			continue // read by this run: migrate judges it
		case opts.Select != nil && !opts.Select.Match(r.Name, r.Image):
			h.Cause = CauseNotSelected
		case opts.Exclude != nil && opts.Exclude(r.File):
			h.Cause = CauseExcluded
		case underDirs(inputs, r.File):
			h.Cause = CauseHidden
		default:
			h.Cause = CauseNotUnderPaths
		}
		add(p, h)
	}
	unread = unparsedHolders(append(full.Unparsed, outside...), ids, names, add)
	for p := range holders {
		sort.Slice(holders[p], func(i, j int) bool { return holders[p][i].less(holders[p][j]) })
	}
	sort.Slice(unread, func(i, j int) bool { return unread[i].File < unread[j].File })
	return holders, unread
}

// aliasRefs are the references of the sources found under a root by a
// path in another directory than the one full read them by (a symlink to
// the source, a hard link): a source is loaded once, by its identity,
// its relative references resolved from the path it was read by, but
// Flow resolves them from the path it is given (flowctl publishes a
// symlink's target), so each such path is read again, alone, for what
// its references name from there.
func aliasRefs(walked []catalog.Input, full *catalog.Catalog, opts catalog.Options) []catalog.ConfigRef {
	dirs := map[paths.FileID]map[string]bool{}
	for _, f := range full.Files {
		if id, ok := paths.Identify(f); ok {
			if dirs[id] == nil {
				dirs[id] = map[string]bool{}
			}
			dirs[id][filepath.Dir(filepath.Clean(f))] = true
		}
	}
	var refs []catalog.ConfigRef
	for _, w := range walked {
		for _, src := range w.Sources {
			id, ok := paths.Identify(src)
			dir := filepath.Dir(filepath.Clean(src))
			if !ok || dirs[id] == nil || dirs[id][dir] {
				continue
			}
			dirs[id][dir] = true
			in := catalog.Input{Arg: src, Root: w.Root, RootWhy: w.RootWhy, Sources: []string{src}}
			refs = append(refs, catalog.Load([]catalog.Input{in}, opts).Refs...)
		}
	}
	return refs
}

// walkRoots walks the root of each input once for the sources that may
// use the config files ids holds (userSources), adding the other names
// it finds them by to names: the sources inside as inputs to load, those
// that resolve outside a root as unparsed. whole says that each root is
// a directory given as a PATH and holds no source the run did not read.
// A root that cannot be searched holds every file.
func walkRoots(inputs []catalog.Input, ids map[paths.FileID]string, read map[any]bool, opts catalog.Options, names map[paths.FileID][]string, add func(string, Holder)) (walked []catalog.Input, outside []catalog.Unparsed, whole bool) {
	roots := map[any]bool{}
	whole = true
	dirs := map[any]bool{}
	for _, in := range inputs {
		if in.Dir != "" {
			dirs[paths.Key(in.Dir)] = true
		}
	}
	for _, in := range inputs {
		if in.Stdin != nil || in.Root == "" || len(in.Sources) == 0 {
			continue
		}
		rk := paths.Key(in.Root)
		if roots[rk] {
			continue
		}
		roots[rk] = true
		found, extra, as, err := userSources(in.Root, ids, read, opts)
		if err != nil {
			// A root that cannot be searched whole may hide any user.
			for _, p := range ids {
				add(p, Holder{Where: paths.Display(in.Root), Cause: CauseRootUnsearchable, Detail: catalog.Describe(err)})
			}
			continue
		}
		w := catalog.Input{Arg: in.Root, Dir: in.Root, Root: in.Root, RootWhy: in.RootWhy}
		for _, src := range found {
			// Containment first: a source that resolves outside the
			// root is never read, so what it holds is unknown: it might
			// use any config file (Flow reads it through the symlink).
			if msg := catalog.EscapesRoot(w, src); msg == "" {
				w.Sources = append(w.Sources, src)
			} else {
				outside = append(outside, catalog.Unparsed{File: src, Why: "is not read: " + msg})
			}
		}
		walked = append(walked, w)
		whole = whole && dirs[rk] && !extra
		for id, a := range as {
			names[id] = append(names[id], a...)
		}
	}
	return walked, outside, whole
}

// unparsedHolders holds back, for each source that cannot be read or
// parsed (or is not read), every config file it might use: each one
// whose name its text holds, or all of them when it cannot be read at
// all. Each source that holds one back is listed in unread.
func unparsedHolders(unparsed []catalog.Unparsed, ids map[paths.FileID]string, names map[paths.FileID][]string, add func(string, Holder)) (unread []Unread) {
	for _, u := range unparsed {
		var held []string
		if u.Src == nil {
			for _, p := range ids {
				add(p, Holder{Where: paths.Display(u.File), Cause: CauseUnreadable, Detail: u.Why})
				held = append(held, paths.Display(p))
			}
		} else {
			text := Unescape(u.Src)
			for id, p := range ids {
				for _, n := range names[id] {
					if containsFold(string(text), n) {
						add(p, Holder{Where: paths.Display(u.File), Cause: CauseUnparsed, Detail: u.Why, Named: n})
						held = append(held, paths.Display(p))
						break
					}
				}
			}
		}
		if len(held) > 0 {
			sort.Strings(held)
			unread = append(unread, Unread{File: paths.Display(u.File), Why: u.Why, Holds: held})
		}
	}
	return unread
}

// Unescape decodes the escapes a YAML or JSON string may spell a name
// with (\uXXXX, \UXXXXXXXX, \xXX, and the one-letter escapes of a
// separator: \/ and \.), then the %-escapes Flow decodes in a path
// (PercentDecode), leaving every other byte as it is: a source that
// cannot be parsed is searched for a file's name in this text.
func Unescape(b []byte) []byte {
	if bytes.IndexByte(b, '\\') < 0 {
		return paths.PercentDecode(b)
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if r, n := sniff.HexEscape(b[i+1:]); n > 0 {
			out = utf8.AppendRune(out, r)
			i += n
			continue
		}
		if b[i+1] == '/' || b[i+1] == '.' {
			out = append(out, b[i+1])
			i++
			continue
		}
		out = append(out, b[i])
	}
	return paths.PercentDecode(out)
}

// userSources walks root once (walkSources, the walk of every command's
// discovery) for what the users of the config files ids holds can be in:
// every catalog source under it, by name or by content, symlinked
// directories followed, and also the sources in hidden directories
// (every one but .git), which discovery skips (docs/shared-configs.md).
// extra says whether it found one that cat's own read (the files read)
// lacks. It gives too the base names of the other paths to the config
// files: symlinks to them and hard links; a source that cannot be
// parsed and names a config by an alias holds it back too.
func userSources(root string, ids map[paths.FileID]string, read map[any]bool, opts catalog.Options) (srcs []string, extra bool, aliases map[paths.FileID][]string, err error) {
	aliases = map[paths.FileID][]string{}
	// The one walk of every command (walkSources), over the whole root,
	// hidden directories too (all but .git).
	found, _, err := input.WalkSources(root, root, true, opts, func(p string) bool {
		id, ok := paths.Identify(p)
		if _, config := ids[id]; ok && config {
			// Every path of the file lends its name: a symlink, a hard
			// link, and the file itself when the run knows it by a link.
			aliases[id] = append(aliases[id], filepath.Base(p))
			return true
		}
		return false
	})
	for _, f := range found {
		srcs = append(srcs, f.Path)
		if !read[paths.Key(f.Path)] {
			extra = true
		}
	}
	return srcs, extra, aliases, err
}

// underDirs reports whether a file is under a directory given as a
// PATH: a user there that the run did not read is in a source that
// discovery skips.
func underDirs(inputs []catalog.Input, file string) bool {
	for _, in := range inputs {
		if in.Dir != "" && paths.Within(in.Dir, file) {
			return true
		}
	}
	return false
}

// containsFold reports whether s holds name in any case: on a file system
// that ignores case (macOS, Windows), Flow opens the file by such a
// spelling.
func containsFold(s, name string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(name))
}
