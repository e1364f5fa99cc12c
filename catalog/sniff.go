package catalog

import (
	"io"
	"os"
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
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	bom := hasBOM(head[:n])
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
func judgeSources(files []found, opts Options) []bool {
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
				is[i] = looksLikeSource(files[i].path, opts)
			}
		}()
	}
	wg.Wait()
	return is
}
