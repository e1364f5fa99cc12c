package main

import (
	"bytes"
	"fmt"
	"testing"
)

// The spool gives back exactly what was written, whether it stayed in
// memory or went to its temp file part way, line by line as commands
// write; discard leaves nothing.
func TestSpool(t *testing.T) {
	for _, size := range []int{0, 10, spoolMemory, spoolMemory + 1, 3*spoolMemory + 12345} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			var want bytes.Buffer
			s := &spool{}
			defer s.close()
			for i := 0; want.Len() < size; i++ {
				line := []byte(fmt.Sprintf("line %d\n", i))
				if rest := size - want.Len(); len(line) > rest {
					line = line[:rest]
				}
				want.Write(line)
				if n, err := s.Write(line); err != nil || n != len(line) {
					t.Fatalf("Write: %d, %v", n, err)
				}
			}
			if onFile := s.file != nil; onFile != (size > spoolMemory) {
				t.Errorf("%d bytes: on a temp file %v", size, onFile)
			}
			var got bytes.Buffer
			if err := s.copyTo(&got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("copyTo gave %d bytes, want the %d written", got.Len(), want.Len())
			}
		})
	}
}
