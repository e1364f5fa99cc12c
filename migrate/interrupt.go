package migrate

import (
	"os"
	"sync/atomic"
	"syscall"
)

// written counts the files written so far in this process, for the
// message of a signal that ends it.
var written atomic.Int64

// Written is the number of files written so far (see groupwrite.OnSignal).
func Written() int64 { return written.Load() }

// SignalName is SIGINT, SIGTERM, SIGHUP or SIGQUIT (or the signal's own
// name).
func SignalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return sig.String()
}

// AddWritten counts n files written by another writer of this process
// (schedtool apply), for the same message.
func AddWritten(n int) { written.Add(int64(n)) }
