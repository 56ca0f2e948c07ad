package runner

import (
	"io"
	"sync"
)

// tail keeps the last max bytes written and forwards everything to live.
// Pipeline stages write concurrently, so it locks.
type tail struct {
	mu    sync.Mutex
	max   int
	buf   []byte // ring of at most max bytes
	start int    // index of the oldest byte once the ring is full
	total int64
	live  io.Writer
}

func newTail(max int, live io.Writer) *tail { return &tail{max: max, live: live} }

func (t *tail) Write(p []byte) (int, error) {
	n := len(p)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(n)
	if t.live != nil {
		// A live reader that went away must not stop the command.
		t.live.Write(p)
	}
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		t.start = 0
		return n, nil
	}
	if len(t.buf) < t.max {
		room := t.max - len(t.buf)
		if len(p) <= room {
			t.buf = append(t.buf, p...)
			return n, nil
		}
		t.buf = append(t.buf, p[:room]...)
		p = p[room:]
		t.start = 0
	}
	for len(p) > 0 {
		n := copy(t.buf[t.start:], p)
		p = p[n:]
		t.start = (t.start + n) % t.max
	}
	return n, nil
}

func (t *tail) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]byte, 0, len(t.buf))
	out = append(out, t.buf[t.start:]...)
	return append(out, t.buf[:t.start]...)
}

func (t *tail) truncated() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total > int64(t.max)
}
