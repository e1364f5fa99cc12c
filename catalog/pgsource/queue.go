package pgsource

import (
	"io"
	"sync"
	"sync/atomic"
)

// queue is a pipe with room for a few blocks, so that reading the socket
// and reading the rows overlap: io.Pipe hands each block over only when
// the reader takes it, and the socket waits meanwhile.
type queue struct {
	full  chan []byte // written blocks, in order; closed at the end
	free  chan []byte // read blocks, for reuse
	done  chan struct{}
	once  sync.Once
	err   error  // why the writer stopped; set before full is closed
	cur   []byte // the rest of the block being read
	block []byte // that block, to give back
	// blocked is set while Write waits for the reader to take a block:
	// the reader is slow, not the server.
	blocked atomic.Bool
}

// queueBlocks is how many blocks can wait (each as large as a write).
const queueBlocks = 8

func newQueue() *queue {
	return &queue{full: make(chan []byte, queueBlocks), free: make(chan []byte, queueBlocks+1), done: make(chan struct{})}
}

// Write queues a copy of p; it fails once the reader has closed.
func (q *queue) Write(p []byte) (int, error) {
	var b []byte
	select {
	case b = <-q.free:
	default:
	}
	b = append(b[:0], p...)
	select {
	case q.full <- b:
		return len(p), nil
	default:
	}
	q.blocked.Store(true)
	defer q.blocked.Store(false)
	select {
	case q.full <- b:
		return len(p), nil
	case <-q.done:
		return 0, io.ErrClosedPipe
	}
}

// CloseWithError ends the stream: the reader gets err (io.EOF for nil)
// after the blocks already queued.
func (q *queue) CloseWithError(err error) {
	if err == nil {
		err = io.EOF
	}
	q.err = err
	close(q.full)
}

func (q *queue) Read(p []byte) (int, error) {
	for len(q.cur) == 0 {
		if q.block != nil {
			select {
			case q.free <- q.block:
			default:
			}
			q.block = nil
		}
		b, ok := <-q.full
		if !ok {
			return 0, q.err
		}
		q.block, q.cur = b, b
	}
	n := copy(p, q.cur)
	q.cur = q.cur[n:]
	return n, nil
}

// Close stops the writer: its next Write fails.
func (q *queue) Close() error {
	q.once.Do(func() { close(q.done) })
	return nil
}
