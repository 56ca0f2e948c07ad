package textutils

import (
	"bufio"
	"io"
)

// lineReader yields delimiter-terminated lines of any length; the last
// line may lack its delimiter.
type lineReader struct {
	br    *bufio.Reader
	delim byte
	buf   []byte
	err   error
}

func newLineReader(r io.Reader, delim byte) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), delim: delim}
}

// next returns the next line without its delimiter, whether it had one,
// and false at the end of input or on a read error (kept in lr.err).
func (lr *lineReader) next() (line []byte, hadDelim bool, ok bool) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.br.ReadSlice(lr.delim)
		lr.buf = append(lr.buf, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err != io.EOF {
				lr.err = err
			}
			if len(lr.buf) == 0 {
				return nil, false, false
			}
			return lr.buf, false, true
		}
		return lr.buf[:len(lr.buf)-1], true, true
	}
}
