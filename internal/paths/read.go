package paths

import (
	"fmt"
	"io"
	"strconv"
)

// TooLargeError is a file over its size limit.
type TooLargeError struct{ msg string }

func (e *TooLargeError) Error() string { return e.msg }

// ReadRegular reads a regular file of at most max bytes. The size is
// checked on the open file before anything is read, and the read stops
// one byte past the limit whatever the file does meanwhile.
func ReadRegular(path string, max int64, flag string) ([]byte, error) {
	f, st, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > max {
		return nil, &TooLargeError{fmt.Sprintf("file is %s, over the limit of %s (see %s)", FormatSize(st.Size()), FormatSize(max), flag)}
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, &TooLargeError{fmt.Sprintf("file is over the limit of %s (see %s)", FormatSize(max), flag)}
	}
	return b, nil
}

// FormatSize writes a byte count as the size flags take it: whole KiB,
// MiB or GiB as such (64 MiB), other sizes of a KiB or more to a tenth
// with the exact count (1.0 KiB (1025 bytes): over a limit of 1 KiB must
// not read as equal to it), and smaller ones in bytes.
func FormatSize(n int64) string {
	units := []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}
	for _, u := range units {
		if n >= u.size {
			if n%u.size == 0 {
				return strconv.FormatInt(n/u.size, 10) + " " + u.name
			}
			return strconv.FormatFloat(float64(n)/float64(u.size), 'f', 1, 64) + " " + u.name + " (" + strconv.FormatInt(n, 10) + " bytes)"
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
