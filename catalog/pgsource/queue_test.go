package pgsource

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"
)

// The queue gives back every byte in order, then the writer's error.
func TestQueueOrderAndError(t *testing.T) {
	for _, end := range []error{nil, errors.New("connection lost")} {
		q := newQueue()
		var want bytes.Buffer
		go func() {
			for i := 0; i < 1000; i++ {
				b := []byte(fmt.Sprintf("row %d %s\n", i, bytes.Repeat([]byte("x"), i%300)))
				if _, err := q.Write(b); err != nil {
					t.Error(err)
				}
			}
			q.CloseWithError(end)
		}()
		for i := 0; i < 1000; i++ {
			fmt.Fprintf(&want, "row %d %s\n", i, bytes.Repeat([]byte("x"), i%300))
		}
		got, err := io.ReadAll(q)
		if end == nil && err != nil || end != nil && err != end {
			t.Errorf("error %v, want %v", err, end)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("read %d bytes, want the %d written, in order", len(got), want.Len())
		}
	}
}

// Closing the reader releases a writer waiting on a full queue.
func TestQueueCloseStopsWriter(t *testing.T) {
	q := newQueue()
	stopped := make(chan error)
	go func() {
		for {
			if _, err := q.Write([]byte("row\n")); err != nil {
				stopped <- err
				return
			}
		}
	}()
	q.Close()
	select {
	case err := <-stopped:
		if err != io.ErrClosedPipe {
			t.Errorf("writer stopped with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the writer still waits after Close")
	}
}
