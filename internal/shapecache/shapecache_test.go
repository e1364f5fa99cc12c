package shapecache

import (
	"fmt"
	"sync"
	"testing"
)

func TestPutKeepsTheFirstAndStopsWhenFull(t *testing.T) {
	c := New[int]()
	one, two := 1, 2
	if got := c.Put([]byte("a"), &one); got != &one {
		t.Fatalf("first Put returned %v", got)
	}
	if got := c.Put([]byte("a"), &two); got != &one {
		t.Fatalf("second Put for the same key returned %v, want the first value", got)
	}
	if got := c.Get([]byte("a")); got != &one {
		t.Fatalf("Get = %v", got)
	}
	if got := c.Get([]byte("b")); got != nil {
		t.Fatalf("Get of a missing key = %v", got)
	}
	for i := c.Len(); i < Max; i++ {
		c.Put([]byte(fmt.Sprint("k", i)), &one)
	}
	if got := c.Put([]byte("past the bound"), &two); got != nil || c.Len() != Max {
		t.Fatalf("Put into a full cache returned %v, len %d", got, c.Len())
	}
}

func TestConcurrentPutsAgree(t *testing.T) {
	c := New[int]()
	var wg sync.WaitGroup
	got := make([]*int, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := i
			got[i] = c.Put([]byte("shape"), &v)
		}()
	}
	wg.Wait()
	for _, g := range got {
		if g != got[0] {
			t.Fatal("concurrent Puts of one key returned different values")
		}
	}
}
