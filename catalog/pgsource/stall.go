package pgsource

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/estuary/schedtool/internal/words"
)

// errStalled is the cause a read is cancelled with when the server has
// sent nothing for the timeout.
var errStalled = errors.New("stalled")

// progress is what a read has received so far, for the watchdog and the
// messages: a server that stalls sends nothing and closes nothing, and
// neither TCP nor pgx notices.
type progress struct {
	rows      atomic.Int64  // rows arrived in this read
	shared    *atomic.Int64 // the selector's counter of rows, for a progress line, or nil
	steps     atomic.Int64  // answers other than rows: connected, BEGIN, the RLS check
	connected atomic.Bool
}

// watch cancels ctx with errStalled once neither a row nor an answer has
// arrived for timeout while the read waited on the server; time the read
// spends waiting for the reader to take rows (q blocked) does not count.
// It returns when ctx is done.
func watch(ctx context.Context, cancel context.CancelCauseFunc, timeout time.Duration, p *progress, q *queue) {
	tick := time.NewTicker(min(timeout/4, time.Second))
	defer tick.Stop()
	beat := func() int64 { return p.rows.Load() + p.steps.Load() }
	last, since := beat(), time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			if b := beat(); b != last || q.blocked.Load() {
				last, since = b, now
				continue
			}
			if now.Sub(since) >= timeout {
				cancel(errStalled)
				return
			}
		}
	}
}

// stalled is the error of a read the watchdog ended: how long nothing
// came, at which point, and what to do about it.
func stalled(timeout time.Duration, p *progress) error {
	where := "while connecting to it"
	if n := p.rows.Load(); n > 0 {
		where = fmt.Sprintf("after %d %s of public.live_specs, before the last one", n, words.Plural(int(n), "row", "rows"))
	} else if p.connected.Load() {
		where = "after connecting, before the first row of public.live_specs (0 rows read)"
	}
	return fmt.Errorf("the server sent nothing for %s (--db-timeout) %s: it or the network stalled; the read is incomplete. Raise --db-timeout for a server that is slow but alive, or give 0 to wait for ever", timeout, where)
}
