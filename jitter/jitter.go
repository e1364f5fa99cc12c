// Package jitter computes the offsets that spread commits of many tasks
// over the day: the connectors' (cespare/xxhash of a destination seed) and
// the V2 runtime's (XXH3-64 of the task's tenant). It is apart from the
// schedule packages, which stay standard library only.
package jitter

import (
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/zeebo/xxh3"

	"github.com/estuary/schedtool/schedule/connector"
)

// Connector is a connector's jitter: (xxhash64(seed) >> 1) mod 24h. A nil
// seed gives no jitter; an empty one does not.
func Connector(seed []byte) time.Duration {
	if seed == nil {
		return 0
	}
	return time.Duration(int64(xxhash.Sum64(seed)>>1)) % (24 * time.Hour)
}

// Tenant is the tenant of a task name, with its slash ("acmeCo/").
func Tenant(task string) string {
	if i := strings.IndexByte(task, '/'); i >= 0 {
		return task[:i+1]
	}
	return task
}

// RuntimeSeed is the runtime's seed for a task: XXH3-64 of its tenant.
func RuntimeSeed(task string) uint64 { return xxh3.HashString(Tenant(task)) }

// Runtime is the runtime's jitter in whole seconds: seed mod 86400.
func Runtime(seed uint64) int64 { return int64(seed % 86400) }

// Seed builds a connector's seed from its config (a generic value) by the
// image's registry entry: the values at its pointers, concatenated. ok is
// false when a value is encrypted (the seed is then unknown). A nil seed
// (no jitter) comes back for images without seed pointers.
func Seed(e *connector.Entry, config any) (seed []byte, ok bool) {
	if len(e.Seed) == 0 {
		return nil, true
	}
	seed = []byte{}
	for _, part := range e.Seed {
		v := lookup(config, part.Pointer)
		switch x := v.(type) {
		case connector.Encrypted:
			return nil, false
		case string:
			if part.LastSegment {
				x = x[strings.LastIndexByte(x, '/')+1:]
			}
			seed = append(seed, x...)
		}
	}
	return seed, true
}

func lookup(v any, ptr string) any {
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[tok]
	}
	return v
}
