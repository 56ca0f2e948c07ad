package xan

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/wsfs/wsfs/runner/command"
)

// call is one invocation of a subcommand: its options, its output and the
// inputs it opened.
type call struct {
	ctx  context.Context
	env  *command.Env
	sub  *subcommand
	vals map[string][]string // option values by long name
	args []string

	delim     rune // 0: by file extension, else comma
	noHeaders bool
	out       *csvWriter
	outFile   command.File
	outName   string
	inputAbs  map[string]bool
	opened    []io.Closer
}

// setup reads the common options and opens the output.
func (c *call) setup() error {
	c.noHeaders = c.has("no-headers")
	if c.has("tabs") {
		c.delim = '\t'
	}
	if d, ok := c.vals["delimiter"]; ok {
		r, err := parseDelimiter(d[len(d)-1])
		if err != nil {
			return err
		}
		c.delim = r
	}
	var w io.Writer = c.env.Stdout
	outDelim := byte(',')
	c.inputAbs = map[string]bool{}
	if name := c.str("output", "-"); name != "-" {
		for _, in := range c.args {
			if in != "-" && c.env.FS.Abs(in) == c.env.FS.Abs(name) {
				return fmt.Errorf("output file %s is also an input: write to another file, then mv it", name)
			}
		}
		f, err := c.env.FS.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return fmt.Errorf("%s: %s", name, command.Strerror(err))
		}
		c.outFile, c.outName = f, name
		w = f
		if d := extDelimiter(name); d != 0 {
			outDelim = byte(d)
		}
	}
	c.out = &csvWriter{w: bufio.NewWriterSize(w, 64<<10), delim: outDelim}
	return nil
}

// finish flushes the output and closes what the call opened.
func (c *call) finish() error {
	var err error
	if c.out != nil {
		err = c.out.w.Flush()
	}
	for _, cl := range c.opened {
		cl.Close()
	}
	if c.outFile != nil {
		if cerr := c.outFile.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		name := c.outName
		if name == "" {
			name = "stdout"
		}
		return fmt.Errorf("write %s: %s", name, command.Strerror(err))
	}
	return nil
}

func parseDelimiter(s string) (rune, error) {
	switch s {
	case `\t`, "tab", "\t":
		return '\t', nil
	}
	r, size := utf8.DecodeRuneInString(s)
	if s == "" || size != len(s) || r == '"' || r == '\n' || r == '\r' || r == utf8.RuneError {
		return 0, usagef("the delimiter must be a single character other than a quote or newline, not %q", s)
	}
	return r, nil
}

// extDelimiter is the delimiter xan infers from a file extension.
func extDelimiter(name string) rune {
	switch strings.ToLower(path.Ext(name)) {
	case ".tsv", ".tab":
		return '\t'
	case ".psv":
		return '|'
	case ".ssv", ".scsv":
		return ';'
	}
	return 0
}

// openRaw opens an input by name; "-" is stdin. The stream is the
// caller's to close only through c.opened.
func (c *call) openRaw(name string) (io.Reader, error) {
	if name == "-" {
		return c.env.Stdin, nil
	}
	f, err := c.env.FS.Open(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", name, command.Strerror(err))
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s: Is a directory", name)
	}
	c.opened = append(c.opened, f)
	return f, nil
}

// csvReader reads records with xan's conventions: a UTF-8 BOM is dropped,
// quotes are lenient (a stray quote in a field is kept, as Rust's csv
// crate does), and every record must have as many fields as the first
// unless flexible is set.
type csvReader struct {
	c        *call
	name     string // as the user gave it; "<stdin>" for stdin
	r        *csv.Reader
	headers  []string // nil with -n
	width    int      // fields of the first record
	pending  []string // first record when it is data (-n)
	flexible bool
	rows     int
	eof      bool
}

// open opens an input as CSV and reads its header row (or, with -n, its
// first row, to learn the width). An empty input has no headers and no
// rows.
func (c *call) open(name string) (*csvReader, error) {
	return c.openWith(name, c.noHeaders, false)
}

func (c *call) openWith(name string, noHeaders, flexible bool) (*csvReader, error) {
	raw, err := c.openRaw(name)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(raw, 64<<10)
	if b, _ := br.Peek(3); bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	r := csv.NewReader(br)
	r.LazyQuotes = true
	r.FieldsPerRecord = -1
	switch {
	case c.delim != 0:
		r.Comma = c.delim
	case extDelimiter(name) != 0:
		r.Comma = extDelimiter(name)
	}
	display := name
	if name == "-" {
		display = "<stdin>"
	}
	cr := &csvReader{c: c, name: display, r: r, flexible: flexible}
	first, err := cr.readRaw()
	if err == io.EOF {
		cr.eof = true
		return cr, nil
	}
	if err != nil {
		return nil, err
	}
	cr.width = len(first)
	if noHeaders {
		cr.pending = first
	} else {
		cr.headers = first
	}
	return cr, nil
}

func (cr *csvReader) readRaw() ([]string, error) {
	rec, err := cr.r.Read()
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s: line %d, column %d: malformed CSV: %v", cr.name, pe.Line, pe.Column, pe.Err)
		}
		return nil, fmt.Errorf("%s: %s", cr.name, command.Strerror(err))
	}
	return rec, nil
}

// Read returns the next data record, or io.EOF.
func (cr *csvReader) Read() ([]string, error) {
	if cr.pending != nil {
		rec := cr.pending
		cr.pending = nil
		cr.rows++
		return rec, nil
	}
	if cr.eof {
		return nil, io.EOF
	}
	cr.rows++
	if cr.rows%1024 == 0 {
		if err := cr.c.ctx.Err(); err != nil {
			return nil, err
		}
	}
	rec, err := cr.readRaw()
	if err == io.EOF {
		cr.eof = true
	}
	if err != nil {
		return nil, err
	}
	if !cr.flexible && len(rec) != cr.width {
		line, _ := cr.r.FieldPos(0)
		return nil, fmt.Errorf("%s: line %d: found a record with %d fields, but the first record has %d (the CSV is ragged or malformed; xan fixlengths pads short rows)",
			cr.name, line, len(rec), cr.width)
	}
	return rec, nil
}

// Headers returns the column names; with -n they are the indices.
func (cr *csvReader) Headers() []string {
	if cr.headers != nil {
		return cr.headers
	}
	h := make([]string, cr.width)
	for i := range h {
		h[i] = fmt.Sprint(i)
	}
	return h
}

// HasHeaders reports whether names can be used in selections.
func (cr *csvReader) HasHeaders() bool { return cr.headers != nil }

// csvWriter writes records as Rust's csv crate does by default: "\n"
// terminators, and quotes only around fields holding the delimiter, a
// quote, CR or LF, or a lone empty field (which would read as no record).
type csvWriter struct {
	w     *bufio.Writer
	delim byte
}

func (cw *csvWriter) Write(rec []string) error {
	for i, f := range rec {
		if i > 0 {
			cw.w.WriteByte(cw.delim)
		}
		if needsQuotes(f, cw.delim) || (f == "" && len(rec) == 1) {
			cw.w.WriteByte('"')
			cw.w.WriteString(strings.ReplaceAll(f, `"`, `""`))
			cw.w.WriteByte('"')
		} else {
			cw.w.WriteString(f)
		}
	}
	return cw.w.WriteByte('\n')
}

func needsQuotes(f string, delim byte) bool {
	for i := 0; i < len(f); i++ {
		switch f[i] {
		case delim, '"', '\n', '\r':
			return true
		}
	}
	return false
}

// WriteHeaders writes the header row unless the input had none (-n).
func (c *call) writeHeaders(h []string) error {
	if c.noHeaders {
		return nil
	}
	return c.out.Write(h)
}

// input opens the single input in args (stdin when none). cr is nil when
// the input is empty, as it is when err is set: callers return err then.
func (c *call) input(args []string) (*csvReader, error) {
	name, err := c.oneInput(args)
	if err != nil {
		return nil, err
	}
	return c.openData(name)
}

// openData opens name as CSV; cr is nil when it is empty (or on error).
func (c *call) openData(name string) (*csvReader, error) {
	cr, err := c.open(name)
	if err != nil || (cr.eof && cr.width == 0) {
		return nil, err
	}
	return cr, nil
}

// inputSelected is input with the columns of the -s/--select option
// (all of them by default).
func (c *call) inputSelected(args []string) (*csvReader, []int, error) {
	cr, err := c.input(args)
	if cr == nil {
		return nil, nil, err
	}
	idx, err := c.selection("select", cr)
	if err != nil {
		return nil, nil, err
	}
	return cr, idx, nil
}
