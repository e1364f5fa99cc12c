package catalog

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/estuary/schedtool/catalog/sniff"
)

// The users of a config file are found by reading every file under the
// root (users.go): a file not named as a source is one when its top level
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
	f, _, err := OpenRegular(p)
	if err != nil {
		return false
	}
	defer f.Close()
	// Most large files under a root mention no catalog key: a substring
	// search says so at the speed of reading; the others are scanned.
	if !sniff.Mentions(f, userSourceKeys) {
		return false
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return true // cannot look again: taken for one (the loader knows)
	}
	return sniff.Source(f, userSourceKeys)
}

// fileSize is the size of a regular file, -1 when it cannot be stat'ed.
func fileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() {
		return -1
	}
	return st.Size()
}

// judgeSources returns those of files that are catalog sources by their
// content (looksLikeSource), cleaned, judged by as many workers as there
// are processors: the scan of a large file is bound by memory bandwidth
// and the processor, and a root holds many.
func judgeSources(files []string, opts Options) []string {
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
				is[i] = looksLikeSource(files[i], opts)
			}
		}()
	}
	wg.Wait()
	var out []string
	for i, p := range files {
		if is[i] {
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}
