package livespecs

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

var Bom = []byte("\xef\xbb\xbf")

// skipBOM drops a UTF-8 byte order mark at the start of a dump.
func skipBOM(r io.Reader) io.Reader { return dropBOM(bufio.NewReader(r)) }

// dropBOM discards a UTF-8 byte order mark at the start of br.
func dropBOM(br *bufio.Reader) *bufio.Reader {
	if b, _ := br.Peek(len(Bom)); bytes.Equal(b, Bom) {
		br.Discard(len(Bom))
	}
	return br
}

// IsRawRows reports whether content is the output of `flowctl raw get
// --table live_specs`: a JSON array (of row objects), told by its first
// byte other than whitespace or a BOM. A catalog source is never an array.
func IsRawRows(head []byte) bool {
	head = bytes.TrimPrefix(head, Bom)
	head = bytes.TrimLeft(head, " \t\r\n")
	return len(head) > 0 && head[0] == '['
}

// rawRows turns a JSON array of row objects (flowctl raw get's output,
// PostgREST's JSON) into dump lines as it reads: each element on its own
// line, numbered as the line of the file where it starts (blank lines fill
// the gap) and starting at its column there: after spaces when it is the
// first element on its line of the file and its column is small, else
// after a mark that says how many lines up and at which column it starts
// (see upMark). The mark keeps memory linear whatever the layout: padding
// each element of a one-line array (`jq -c`) to its column would repeat
// the bytes of every element before it. A newline between an
// element's tokens becomes a '\r' (JSON whitespace, and no line end to a
// dump), and any '\r' of the file a space, so that every byte of a row
// keeps its column and the row marks where the file's lines start:
// ScanDumpRaw turns the marks back into spaces and reads the row with
// those line starts (tree.JSONOptions.LineStarts), so that positions in a
// pretty-printed element are the file's. The array's own syntax
// (brackets, commas) is checked here; the elements are left to the row
// reader.
type rawRows struct {
	src        *bufio.Reader
	buf        []byte
	out        []byte // converted, not yet returned
	block      []byte // out's memory, reused block after block
	line, col  int    // position of the next input byte, from 1
	outLine    int    // the output line being written, from 1
	state      int
	afterComma bool // in rawValue: a ',' was the last token
	depth      int  // nesting inside the current element
	inStr, esc bool // inside a string of the current element; after a backslash in it
	err        error
}

const (
	rawStart   = iota // before '['
	rawValue          // expecting an element (or ']' right after '[')
	rawElement        // inside an element
	rawNext           // after an element: ',' or ']'
	rawEnd            // after ']'
)

// lineMark stands in a row of rawRows for a line break of the file.
const lineMark = '\r'

// upMark encloses, at the start of a row of rawRows, how many lines above
// its line in the dump the row starts in the file (several elements on
// one line: `[{...},{...}]`) and the column it starts at there, as
// "\vUP:COL\v"; the row's text follows the mark, unpadded.
const upMark = '\v'

// maxPad is the widest column an element is padded to with spaces; one
// further right is marked instead (a line of 1 GB of spaces before an
// element is not copied into a row).
const maxPad = 256

// marksLines reports whether the rows r reads mark the line breaks of the
// file they come from with lineMark (rawRows, or a reader of it).
func marksLines(r io.Reader) bool {
	m, ok := r.(interface{ marksLines() bool })
	return ok && m.marksLines()
}

func (r *rawRows) marksLines() bool { return true }

// NewRawRows reads flowctl raw get output as a dump.
func NewRawRows(r io.Reader) io.Reader {
	br := dropBOM(bufio.NewReaderSize(r, 64<<10))
	return &rawRows{src: br, buf: make([]byte, 256<<10), line: 1, col: 1, outLine: 1}
}

func (r *rawRows) fail(format string, args ...any) error {
	return fmt.Errorf("line %d, column %d: %s (flowctl raw get output is one JSON array of row objects)", r.line, r.col, fmt.Sprintf(format, args...))
}

func (r *rawRows) Read(p []byte) (int, error) {
	for len(r.out) == 0 && r.err == nil {
		r.fill()
	}
	if len(r.out) > 0 {
		n := copy(p, r.out)
		r.out = r.out[n:]
		return n, nil
	}
	return 0, r.err
}

// fill converts the next block of input into r.out, or sets r.err.
func (r *rawRows) fill() {
	n, err := r.src.Read(r.buf)
	out := r.convert(r.buf[:n], r.block[:0])
	if r.err == nil && err != nil {
		switch {
		case err != io.EOF:
			r.err = err
		case r.state == rawEnd:
			r.err = io.EOF
		case r.state == rawStart:
			r.err = r.fail("no JSON array")
		default:
			r.err = r.fail("the input ends inside the array (no closing ])")
		}
	}
	if r.err != nil && r.state == rawElement {
		// What was read of a broken element still goes out as a row, so
		// that the row reader says what is wrong with it too.
		out = append(out, '\n')
	}
	r.out, r.block = out, out
}

func (r *rawRows) convert(in, out []byte) []byte {
	for i := 0; i < len(in) && r.err == nil; i++ {
		c := in[i]
		if r.state == rawElement {
			switch {
			case r.inStr:
				switch {
				case r.esc:
					r.esc = false
				case c == '\\':
					r.esc = true
				case c == '"':
					r.inStr = false
				case c == '\n' || c == '\r':
					r.err = r.fail("a raw line break inside a string")
					return out
				}
				out = append(out, c)
			case c == '"':
				r.inStr = true
				out = append(out, c)
			case c == '{' || c == '[':
				r.depth++
				out = append(out, c)
			case (c == '}' || c == ']') && r.depth > 0:
				r.depth--
				out = append(out, c)
			case r.depth == 0 && (c == ',' || c == ']'):
				out = append(out, '\n')
				r.outLine++
				r.state = rawNext
				i-- // the separator is read again in rawNext
				continue
			case c == '\n':
				out = append(out, lineMark)
			case c == '\r':
				out = append(out, ' ')
			default:
				out = append(out, c)
			}
		} else {
			switch {
			case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			case r.state == rawStart && c == '[':
				r.state = rawValue
			case r.state == rawValue && c == ']' && !r.afterComma:
				r.state = rawEnd // an empty array
			case r.state == rawValue && c != ']' && c != ',':
				// An element starts: on its own line, at its column.
				for r.outLine < r.line {
					out = append(out, '\n')
					r.outLine++
				}
				if up := r.outLine - r.line; up > 0 || c == upMark || r.col > maxPad {
					// Its line is taken by the element before (or
					// it starts far right): the row says how many
					// lines up and at which column it starts (and
					// says so before a stray upMark of its own).
					out = append(out, upMark)
					out = strconv.AppendInt(out, int64(up), 10)
					out = append(out, ':')
					out = strconv.AppendInt(out, int64(r.col), 10)
					out = append(out, upMark)
				} else {
					for k := 1; k < r.col; k++ {
						out = append(out, ' ')
					}
				}
				r.state, r.afterComma, r.depth, r.inStr, r.esc = rawElement, false, 0, false, false
				i-- // read again as the element's first byte
				continue
			case r.state == rawNext && c == ',':
				r.state, r.afterComma = rawValue, true
			case r.state == rawNext && c == ']':
				r.state = rawEnd
			case r.state == rawEnd:
				r.err = r.fail("%q after the end of the array", c)
				return out
			case r.state == rawStart:
				r.err = r.fail("%q where the array should start", c)
				return out
			default:
				r.err = r.fail("%q where an element should be", c)
				return out
			}
		}
		if c == '\n' {
			r.line++
			r.col = 1
		} else if c&0xC0 != 0x80 {
			r.col++
		}
	}
	return out
}

// pubIDForm is last_pub_id as PostgreSQL (and so PostgREST and flowctl raw
// get) prints a flowid: macaddr8's eight hex bytes with colons.
var pubIDForm = regexp.MustCompile(`^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){7}$`)

// NormalizePubID writes a last_pub_id as flowctl and expectPubId write
// it: 16 hex digits, without macaddr8's colons.
func NormalizePubID(s string) string {
	if pubIDForm.MatchString(s) {
		return strings.ReplaceAll(s, ":", "")
	}
	return s
}
