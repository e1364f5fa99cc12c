package tree

// MergeKeys applies merge keys to a document as Flow applies them to
// every catalog source after parsing it (crates/sources loader.rs,
// yaml_merge_keys::merge_keys_serde), YAML and JSON alike: a key "<<"
// (in YAML quoted or not) whose value is a mapping, or a list of
// mappings, adds to the mapping holding it each key of those mappings
// that it lacks. The mapping's own keys win; in a list, an earlier
// mapping's keys win over a later one's; the merge is shallow (a key's
// value is taken whole, never merged with the mapping's own). Mappings
// are merged inside out: the keys and values of a mapping, the merged
// mapping itself included, are merged before the mapping is. The "<<"
// key goes; a merged key is marked Merged (its value is written
// elsewhere: an edit through it is refused) and keeps its value's
// position. A merge value that is neither a mapping nor a list of
// mappings is an error, as Flow's build refuses it ("only mappings and
// arrays of mappings may be merged").
func MergeKeys(d *Doc) error {
	if err := mergeKeys(d.Root, 0); err != nil {
		return err
	}
	d.Merges = true
	return nil
}

func mergeKeys(n *Node, depth int) error {
	if n == nil || depth > 10000 {
		return nil
	}
	switch n.Kind {
	case Array:
		for _, it := range n.Items {
			if err := mergeKeys(it, depth+1); err != nil {
				return err
			}
		}
		return nil
	case Object:
	default:
		return nil
	}
	at := -1
	for i := range n.Fields {
		if err := mergeKeys(n.Fields[i].Value, depth+1); err != nil {
			return err
		}
		if n.Fields[i].Key == "<<" {
			at = i
		}
	}
	if at < 0 {
		return nil
	}
	v := n.Fields[at].Value
	var from []Field
	switch v.Kind {
	case Object:
		from = v.Fields
	case Array:
		seen := map[string]bool{}
		for _, it := range v.Items {
			if it.Kind != Object {
				return v.mergeError()
			}
			for _, f := range it.Fields {
				if !seen[f.Key] {
					seen[f.Key] = true
					from = append(from, f)
				}
			}
		}
	default:
		return v.mergeError()
	}
	fields := make([]Field, 0, len(n.Fields)-1+len(from))
	own := make(map[string]bool, len(n.Fields))
	for i, f := range n.Fields {
		if i != at {
			fields = append(fields, f)
			own[f.Key] = true
		}
	}
	for _, f := range from {
		if own[f.Key] {
			continue
		}
		f.Merged = true
		f.Value.Parent, f.Value.Key = n, f.Key
		fields = append(fields, f)
	}
	n.Fields = fields
	return nil
}

func (n *Node) mergeError() error {
	return &SyntaxError{File: n.Doc.File, Line: n.Line(), Col: n.Col(), Msg: "a merge key (<<) needs a mapping or a list of mappings (Flow: only mappings and arrays of mappings may be merged)"}
}

// ThroughMerge reports whether n, or an object or array holding it, is
// the value of a key that a merge key brought (MergeKeys).
func ThroughMerge(n *Node) bool {
	for x := n; x != nil && x.Parent != nil; x = x.Parent {
		if x.Parent.Kind == Object {
			if f := x.Parent.Field(x.Key); f != nil && f.Merged && f.Value == x {
				return true
			}
		}
	}
	return false
}
