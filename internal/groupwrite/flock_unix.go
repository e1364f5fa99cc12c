//go:build unix

package groupwrite

import (
	"os"
	"syscall"
)

// flock takes an exclusive advisory lock on f, waiting for it.
func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}
