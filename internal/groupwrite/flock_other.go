//go:build !unix

package groupwrite

import (
	"errors"
	"os"
)

// flock is not available here: group writes rely on the check before
// each rename alone.
func flock(*os.File) error { return errors.New("no advisory locks") }
