package tzdata

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"errors"
	"io"
	"path"
	"strings"
	"sync"
	"time"
)

// The connectors' image (docs/behaviour.md §4.2): the connectors run on
// debian:trixie-slim with tzdata and tzdata-legacy installed
// (estuary/connectors base-image/Dockerfile), set no TZ or ZONEINFO and
// do not link time/tzdata, so their time.LoadLocation(name) reads the
// file /usr/share/zoneinfo/<name> of those two packages, as the kernel
// resolves that path. image_list.go lists every file and symbolic link
// the packages put there, and image_zones.gz holds the distinct TZif data
// of those files, both generated from the packages themselves
// (scripts/trixie-tzdata, then go generate; a test fails while they are
// stale). Go's own copy (zoneinfo.zip, Version) is another release with
// other files: it is what Flow's timezones are judged with.

//go:generate go test -run ^TestImageList$ . -update

//go:embed image_zones.gz
var imageZonesGz []byte

// imageFile is one file or symbolic link under the image's
// /usr/share/zoneinfo.
type imageFile struct {
	name string // its path below /usr/share/zoneinfo
	link string // a link's target as the package has it; "" for a file
	// off and size place a file's data in image_zones.gz; off is -1 for a
	// file that is not TZif data (zone.tab, tzdata.zi, leapseconds).
	off, size int32
}

const (
	imageZoneinfo = "/usr/share/zoneinfo/"
	// imageLocaltime is the image's /etc/localtime, a link to Etc/UTC:
	// the debian images ship it, and tzdata's postinst keeps it (Etc/UTC
	// is its default). The packages' localtime is a link to it.
	imageLocaltime = "/usr/share/zoneinfo/Etc/UTC"
	// pathMax is Linux's PATH_MAX, the terminating NUL included: open(2)
	// refuses a longer path (ENAMETOOLONG) before looking at it.
	pathMax = 4096
	// maxSymlinks is Linux's limit on links followed in one lookup (ELOOP).
	maxSymlinks = 40
)

// imageNode is a path of the image's tree: a directory, a link or a file.
type imageNode struct {
	dir  bool
	link string
	file *imageFile
}

var (
	imageTree = sync.OnceValue(func() map[string]imageNode {
		tree := map[string]imageNode{"/": {dir: true}, "/etc": {dir: true}, "/etc/localtime": {link: imageLocaltime}}
		for i := range imageFiles {
			f := &imageFiles[i]
			p := imageZoneinfo + f.name
			if f.link != "" {
				tree[p] = imageNode{link: f.link}
			} else {
				tree[p] = imageNode{file: f}
			}
			for d := path.Dir(p); tree[d].file == nil && !tree[d].dir; d = path.Dir(d) {
				tree[d] = imageNode{dir: true}
			}
		}
		return tree
	})
	imageZones = sync.OnceValue(func() []byte {
		r, err := gzip.NewReader(bytes.NewReader(imageZonesGz))
		if err != nil {
			panic("tzdata: embedded image_zones.gz: " + err.Error())
		}
		b, err := io.ReadAll(r)
		if err != nil {
			panic("tzdata: embedded image_zones.gz: " + err.Error())
		}
		return b
	})
	imageCache sync.Map // name -> imageLoaded
)

type imageLoaded struct {
	loc *time.Location
	err error
}

// The errors open(2) gives, in Linux's words.
var (
	errNoEnt   = errors.New("no such file or directory")
	errNotDir  = errors.New("not a directory")
	errIsDir   = errors.New("is a directory")
	errLoop    = errors.New("too many levels of symbolic links")
	errTooLong = errors.New("file name too long")
)

// openImage resolves an absolute path in the image's tree as the kernel
// does: empty and "." components stay, ".." climbs (it can come only from
// a link's target here), every link is followed (relative to its
// directory, or from the root), a file with anything after it, even a
// slash, is not a directory, and the path must end at a file.
func openImage(p string) (*imageFile, error) {
	if len(p) >= pathMax {
		return nil, errTooLong
	}
	tree := imageTree()
	comps := strings.Split(p, "/")
	cur, links := "/", 0
	for i := 0; i < len(comps); i++ {
		switch c := comps[i]; c {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		default:
			n, ok := tree[path.Join(cur, c)]
			switch {
			case !ok:
				return nil, errNoEnt
			case n.dir:
				cur = path.Join(cur, c)
			case n.link != "":
				if links++; links > maxSymlinks {
					return nil, errLoop
				}
				if strings.HasPrefix(n.link, "/") {
					cur = "/"
				}
				comps = append(strings.Split(n.link, "/"), comps[i+1:]...)
				i = -1
			case i < len(comps)-1:
				return nil, errNotDir
			default:
				return n.file, nil
			}
		}
	}
	return nil, errIsDir
}

// LoadImage is time.LoadLocation(name) as the connectors call it in their
// image: "" and "UTC" are UTC; a name containing ".." or starting with a
// slash is refused; any other name is the file /usr/share/zoneinfo/<name>
// of the image (so America//New_York, ./UTC, right/UTC, posixrules and
// localtime load, and posix/... does not: trixie's tzdata has no posix/),
// read with time.LoadLocationFromTZData, which skips a right/ zone's leap
// second records and takes its transition times as they are: they fall
// its leap seconds late (27s in 2026) until the file's table ends in 2037.
// "Local" is not handled here: it is the process's zone, not a name (see
// connector.ParseTimezone). Never the host's files. Remembered.
func LoadImage(name string) (*time.Location, error) {
	if name == "" || name == "UTC" {
		return time.UTC, nil
	}
	if z, ok := imageCache.Load(name); ok {
		return z.(imageLoaded).loc, z.(imageLoaded).err
	}
	var z imageLoaded
	if strings.Contains(name, "..") || name[0] == '/' || name[0] == '\\' {
		// time.LoadLocation's own refusal, before any file is read.
		return nil, errors.New("time: invalid location name")
	}
	switch f, err := openImage(imageZoneinfo + "/" + name); {
	case err == errNoEnt:
		z.err = errors.New("unknown time zone " + name)
	case err != nil:
		z.err = errors.New("open " + imageZoneinfo + "/" + name + ": " + err.Error())
	case f.off < 0:
		z.err = errors.New("malformed time zone information")
	default:
		z.loc, z.err = time.LoadLocationFromTZData(name, imageZones()[f.off:f.off+f.size])
	}
	imageCache.Store(name, z)
	return z.loc, z.err
}

// ImageNames lists the files and links the image's tzdata and
// tzdata-legacy put under /usr/share/zoneinfo, sorted, those that are not
// TZif data (zone.tab) included.
func ImageNames() []string {
	out := make([]string, len(imageFiles))
	for i, f := range imageFiles {
		out[i] = f.name
	}
	return out
}
