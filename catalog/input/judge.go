package input

import (
	"bytes"
	"errors"
	"io"
	"os"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/estuary/schedtool/catalog"
	"github.com/estuary/schedtool/catalog/sniff"
	"github.com/estuary/schedtool/catalog/tree"
	"github.com/estuary/schedtool/internal/paths"
)

// The users of a config file are found by reading every file under the
// root (catalog/users): a file not named as a source is one when its top level
// is a mapping with a catalog key. A root holds much else (fixtures, data,
// generated JSON of hundreds of MB), so a large file is judged by a
// stream over its bytes (catalog/sniff), in one buffer, never read whole nor
// parsed into a tree: memory stays bounded whatever the file sizes, and
// the scan runs near the speed of reading the file (docs/speed.md).

// sniffWhole is the size up to which a file is read whole and parsed, as
// the loader would read it (exact); larger ones are streamed.
const sniffWhole = 1 << 20

// sniffSource reports whether the file at p, larger than sniffWhole,
// has a top level that is a mapping with one of userSourceKeys, judged
// by a stream (catalog/sniff).
func sniffSource(p string) bool {
	f, _, err := paths.OpenRegular(p)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	bom := tree.HasBOM(head[:n])
	// fromStart is the file from its first byte; UTF-16 or UTF-32 (a
	// byte-order mark) is read as far as ASCII goes, NULs dropped (as
	// looseText), its byte-order mark skipped by the stream. nil when
	// the file cannot be read again: it is then taken for a source (the
	// loader knows).
	fromStart := func() io.Reader {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil
		}
		if bom {
			return &dropNUL{r: f}
		}
		return f
	}
	// Most large files under a root mention no catalog key: a substring
	// search says so at the speed of reading; the others are scanned.
	r := fromStart()
	if r == nil {
		return true
	}
	if !sniff.Mentions(r, userSourceKeys) {
		return false
	}
	if r = fromStart(); r == nil {
		return true
	}
	return sniff.Source(r, userSourceKeys)
}

// dropNUL reads r with its NUL bytes dropped.
type dropNUL struct{ r io.Reader }

func (d *dropNUL) Read(b []byte) (int, error) {
	for {
		n, err := d.r.Read(b)
		k := 0
		for _, c := range b[:n] {
			if c != 0 {
				b[k] = c
				k++
			}
		}
		if k > 0 || err != nil {
			return k, err
		}
	}
}

// fileSize is the size of a regular file, -1 when it cannot be stat'ed.
func fileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() {
		return -1
	}
	return st.Size()
}

// judgeSources says of each of files whether it is a catalog source by
// its content (looksLikeSource), judged by as many workers as there are
// processors: the scan of a large file is bound by memory bandwidth and
// the processor, and a root holds many.
func judgeSources(files []Found, opts catalog.Options) []bool {
	// Each file is judged alone: the run's shared count of expanded
	// aliases is no one's to write from several goroutines.
	opts.Limits.Expanded = nil
	is := make([]bool, len(files))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(files) {
					return
				}
				is[i] = looksLikeSource(files[i].Path, opts)
			}
		}()
	}
	wg.Wait()
	return is
}

// looksLikeSource reports whether a YAML or JSON file that is not named
// as a source is one all the same: its top level is a mapping with a
// key only a catalog source has. One that parses but is not such a
// mapping is not taken for one; one with a YAML or JSON name that cannot
// be read at all is.
func looksLikeSource(p string, opts catalog.Options) bool {
	if fileSize(p) > sniffWhole {
		// Large: streamed in bounded memory, never parsed (catalog/sniff). A
		// source over --max-file-size is then one that cannot be read,
		// which holds every file back.
		return sniffSource(p)
	}
	src, err := paths.ReadRegular(p, opts.MaxFileSize, "--max-file-size")
	if tl := (*paths.TooLargeError)(nil); errors.As(err, &tl) {
		// Too large to read whole: a catalog key at its top level,
		// judged by a stream as a large file is (its first bytes alone
		// miss a key after them), makes it a source that cannot be
		// read, which holds every file back.
		return sniffSource(p)
	}
	if err != nil {
		// Unknown content (permission denied, a FIFO or a device under a
		// YAML or JSON name): an unknown is not a zero. Taken for a
		// source that cannot be read, it holds every config file back
		// and census counts it unreadable (docs/behaviour.md §1).
		return isYAMLOrJSON(p)
	}
	text, _, terr := tree.DecodeText(src)
	if terr != nil {
		// Not text Flow's reader decodes: a file marked as text (a
		// UTF-16 or UTF-32 byte order mark) that names a catalog key is
		// a source that cannot be read, which holds every file back;
		// any other (a binary file) is not a source.
		return tree.HasBOM(src) && startsSourceKey(looseText(src))
	}
	if !mentionsSourceKey(text) {
		return false
	}
	doc, err := tree.ParseSource(p, text, opts.Limits)
	if err != nil && tree.ReadAsJSON(p, text) {
		// A YAML body under a .json name (a YAML one that failed would
		// fail again).
		doc, err = tree.ParseYAML(p, text, opts.Limits)
		if err == nil {
			err = tree.MergeKeys(doc)
		}
	}
	if err != nil || doc.Root.Kind != tree.Object {
		return false
	}
	for _, k := range userSourceKeys {
		if doc.Root.Get(k) != nil {
			return true
		}
	}
	return false
}

// userSourceKeys are the top-level keys that make a mapping a catalog
// source for finding the users of a file (of sourceKeys, those that can
// name a config file or lead to one).
var userSourceKeys = []string{"materializations", "captures", "collections", "import"}

// mentionsSourceKey is a cheap first look: a file that holds none of the
// keys, nor an escape that may spell one (a key Flow's readers decode
// from "materi\u0061lizations"), is not parsed (most files under a root
// are not catalogs).
func mentionsSourceKey(b []byte) bool {
	for _, k := range userSourceKeys {
		if bytes.Contains(b, []byte(k)) {
			return true
		}
	}
	return sniff.MayEscape(b)
}

// startsSourceKey reports whether a text that cannot be parsed has a
// line that begins with a catalog key and a colon (YAML, or a JSON key):
// `import x` in a program is not one, `import:` is.
func startsSourceKey(b []byte) bool { return sourceKeyLine.Match(b) }

var sourceKeyLine = regexp.MustCompile(`(?m)^[ \t{,]*"?(?:` + strings.Join(userSourceKeys, "|") + `)"?[ \t]*:`)

// looseText is bytes with their NULs dropped: UTF-16 and UTF-32 text
// that cannot be decoded, read as far as ASCII goes.
func looseText(b []byte) []byte { return bytes.ReplaceAll(b, []byte{0}, nil) }
