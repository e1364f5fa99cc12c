package tree

// Arena hands out the nodes and fields of parsed documents. A parser
// without one allocates them in small chunks of its own; a dump reader
// gives each worker an Arena and Resets it after every row, so a stream of
// rows reuses the same memory.
//
// After Reset, every node of the documents parsed from the arena is
// invalid. Documents parsed with an arena also copy their strings (short
// ones interned) rather than share the source's memory, so strings taken
// from them stay valid after Reset and after the source buffer is reused.
type Arena struct {
	nodes  [][]Node
	ni, nj int
	fields []Field
	reuse  bool

	// Scratch stacks of the parser, kept between documents.
	openFields []Field
	openItems  []*Node
	// strs interns short strings (keys, flags, image names repeat on
	// every row of a dump): a direct-mapped cache, so unique values only
	// replace each other.
	strs *[internSlots]string
}

const internSlots = 1 << 12

// str returns b as a string that does not share b's memory.
func (a *Arena) str(b []byte) string {
	if len(b) > 40 {
		return string(b)
	}
	if a.strs == nil {
		a.strs = new([internSlots]string)
	}
	h := uint32(2166136261) // FNV-1a
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	slot := &a.strs[h&(internSlots-1)]
	if *slot == string(b) {
		return *slot
	}
	*slot = string(b)
	return *slot
}

// NewArena returns an arena for reuse with Reset.
func NewArena() *Arena { return &Arena{reuse: true} }

// Reset makes every node and field handed out so far available again.
func (a *Arena) Reset() {
	a.ni, a.nj = 0, 0
	a.fields = a.fields[:0]
}

func (a *Arena) node() *Node {
	if a.ni == len(a.nodes) {
		size := 32
		if a.reuse {
			size = 512
		}
		a.nodes = append(a.nodes, make([]Node, size))
	}
	c := a.nodes[a.ni]
	n := &c[a.nj]
	a.nj++
	if a.nj == len(c) {
		a.ni, a.nj = a.ni+1, 0
	}
	return n
}

// keepFields copies an object's fields into the arena, exactly sized.
func (a *Arena) keepFields(fs []Field) []Field {
	if len(a.fields)+len(fs) > cap(a.fields) {
		if a.reuse && len(a.fields) > 0 {
			// Older rows' fields stay where they are until Reset.
			a.fields = make([]Field, 0, max(2*cap(a.fields), len(fs)))
		} else {
			a.fields = make([]Field, 0, max(64, len(fs)))
		}
	}
	start := len(a.fields)
	a.fields = append(a.fields, fs...)
	return a.fields[start:len(a.fields):len(a.fields)]
}
