// Package shapecache is the bounded, concurrent map from a dump row's
// schedule shape (tree.RowShape.Key) to what was decided for the first row
// of that shape: census's verdicts and validate's finding templates.
package shapecache

import "sync"

// Max bounds a cache: past it, new shapes are decided row by row, so
// memory stays bounded whatever the dump holds.
const Max = 50_000

// Cache maps shape keys to values; the zero value is not usable, call New.
type Cache[V any] struct {
	mu sync.RWMutex
	m  map[string]*V
}

// New returns an empty cache.
func New[V any]() *Cache[V] { return &Cache[V]{m: map[string]*V{}} }

// Get returns the value stored for key, or nil.
func (c *Cache[V]) Get(key []byte) *V {
	c.mu.RLock()
	v := c.m[string(key)]
	c.mu.RUnlock()
	return v
}

// Put stores v for key and returns it; when a value is already stored it
// is kept and returned instead, and when the cache is full nothing is
// stored and nil comes back.
func (c *Cache[V]) Put(key []byte, v *V) *V {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.m[string(key)]; old != nil {
		return old
	}
	if len(c.m) >= Max {
		return nil
	}
	c.m[string(key)] = v
	return v
}

// Len is how many shapes are stored.
func (c *Cache[V]) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}
