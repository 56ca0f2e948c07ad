// Package runwire is the wire format of `wsfs run` between its processes
// — the caller and the server (the run socket), the server and its
// workers (one socketpair each) — and the caller's side of the run
// socket, which the small front (cmd/wsfs) and wsfs-core share. It
// imports only the standard library and internal/home, so that the front
// stays small.
//
// Every message is a frame: a 4-byte big-endian length, a kind byte, then
// its fields (integers as 8 bytes, strings and byte strings as a 4-byte
// length and the bytes, lists as a count and the items). A command's
// output travels as frames too, and a stored output blob is OutputMagic
// followed by the same output frames: one codec for all of it.
package runwire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"
)

// Version is the format's version: a server answers a job of another
// version with an error asking to restart it.
const Version = 3

// Frame kinds.
const (
	KindJob       = 'J' // caller → server, with its stdin, stdout and stderr
	KindInterrupt = 'I' // caller → server: Ctrl-C (the second kills)
	KindReport    = 'R' // server → caller: the end of the command
	KindTurn      = 'T' // server → worker, with the command's three streams
	KindDone      = 'D' // worker → server: the command ended
	KindStdout    = 'o' // output, worker → server and in stored outputs
	KindStderr    = 'e'
)

// MaxFrame bounds a frame: a script is at most MaxScript, and everything
// else in a job or a turn is small.
const MaxFrame = MaxScript + 1<<20

// MaxScript bounds a script given to wsfs run (as an argument, with -f or
// on stdin); data belongs on stdin or in the workspace.
const MaxScript = 8 << 20

// ErrFormat reports a frame that does not parse.
var ErrFormat = errors.New("runwire: bad frame")

// Encoder builds one frame.
type Encoder struct{ b []byte }

// NewFrame starts a frame of kind.
func NewFrame(kind byte) *Encoder { return &Encoder{b: []byte{0, 0, 0, 0, kind}} }

// Int appends an integer.
func (e *Encoder) Int(n int64) *Encoder {
	e.b = binary.BigEndian.AppendUint64(e.b, uint64(n))
	return e
}

// Bool appends a boolean.
func (e *Encoder) Bool(v bool) *Encoder {
	if v {
		return e.Int(1)
	}
	return e.Int(0)
}

// Bytes appends a byte string.
func (e *Encoder) Bytes(p []byte) *Encoder {
	e.b = binary.BigEndian.AppendUint32(e.b, uint32(len(p)))
	e.b = append(e.b, p...)
	return e
}

// Str appends a string.
func (e *Encoder) Str(s string) *Encoder {
	e.b = binary.BigEndian.AppendUint32(e.b, uint32(len(s)))
	e.b = append(e.b, s...)
	return e
}

// Strs appends a list of strings.
func (e *Encoder) Strs(ss []string) *Encoder {
	e.b = binary.BigEndian.AppendUint32(e.b, uint32(len(ss)))
	for _, s := range ss {
		e.Str(s)
	}
	return e
}

// Done returns the frame, its length filled in.
func (e *Encoder) Done() []byte {
	binary.BigEndian.PutUint32(e.b, uint32(len(e.b)-4))
	return e.b
}

// Decoder reads the fields of a frame's body; the first error sticks.
type Decoder struct {
	b   []byte
	err error
}

// NewDecoder reads the fields of body (as ReadFrame returns it) after its
// kind byte, which must be kind.
func NewDecoder(body []byte, kind byte) *Decoder {
	if len(body) < 1 || body[0] != kind {
		return &Decoder{err: fmt.Errorf("%w: not a %q frame", ErrFormat, kind)}
	}
	return &Decoder{b: body[1:]}
}

func (d *Decoder) fail() { d.err, d.b = ErrFormat, nil }

// Int reads an integer.
func (d *Decoder) Int() int64 {
	if d.err != nil || len(d.b) < 8 {
		d.fail()
		return 0
	}
	n := binary.BigEndian.Uint64(d.b)
	d.b = d.b[8:]
	return int64(n)
}

// Bool reads a boolean.
func (d *Decoder) Bool() bool { return d.Int() != 0 }

// Bytes reads a byte string (a copy).
func (d *Decoder) Bytes() []byte {
	if d.err != nil || len(d.b) < 4 {
		d.fail()
		return nil
	}
	n := binary.BigEndian.Uint32(d.b)
	if uint64(n) > uint64(len(d.b)-4) {
		d.fail()
		return nil
	}
	p := append([]byte(nil), d.b[4:4+n]...)
	d.b = d.b[4+n:]
	return p
}

// Str reads a string.
func (d *Decoder) Str() string { return string(d.Bytes()) }

// Strs reads a list of strings.
func (d *Decoder) Strs() []string {
	if d.err != nil || len(d.b) < 4 {
		d.fail()
		return nil
	}
	n := binary.BigEndian.Uint32(d.b)
	d.b = d.b[4:]
	if uint64(n) > uint64(len(d.b)/4) {
		d.fail()
		return nil
	}
	var ss []string
	for range n {
		ss = append(ss, d.Str())
	}
	return ss
}

// Err returns the first error, or one if fields are left over.
func (d *Decoder) Err() error {
	if d.err == nil && len(d.b) != 0 {
		d.err = ErrFormat
	}
	if d.err != nil {
		return fmt.Errorf("%w: a field does not parse", d.err)
	}
	return nil
}

// ReadFrame reads one frame and returns its body (kind byte and fields).
func ReadFrame(r io.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n == 0 || n > MaxFrame {
		return nil, fmt.Errorf("%w: %d bytes", ErrFormat, n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return body, nil
}

// Kind returns a frame body's kind (0 for an empty body).
func Kind(body []byte) byte {
	if len(body) == 0 {
		return 0
	}
	return body[0]
}

// Job is one `wsfs run`, as the caller parsed it (once) and sends it.
type Job struct {
	Workspace string
	Script    string
	// Timeout is the command's wall time; zero is the workspace's limit.
	Timeout time.Duration
	// Wait bounds the time in the workspace's queue when WaitSet; zero
	// refuses at once when another command runs or waits.
	Wait    time.Duration
	WaitSet bool
	// Author is who runs the command; "" is the caller's user name (the
	// server knows its user ID from the socket).
	Author string
	// JSON asks for the report only: the command's stdout and stderr go
	// to the report (their last bytes), not to the caller's streams.
	JSON bool
	// Store is the --store the caller gave ("" when none): the server
	// refuses a job meant for another store.
	Store string
	// Env holds KEY=VALUE for each ForwardedEnv variable the caller set.
	Env []string
}

// ForwardedEnv names the caller's environment variables a command sees
// as the caller set them (or unset).
var ForwardedEnv = []string{"USER", "LOGNAME", "TZ", "WSFS_DEBUG"}

// AppendJob encodes j as a frame.
func AppendJob(j Job) []byte {
	return NewFrame(KindJob).Int(Version).Str(j.Workspace).Str(j.Script).Int(int64(j.Timeout)).
		Int(int64(j.Wait)).Bool(j.WaitSet).Str(j.Author).Bool(j.JSON).Str(j.Store).Strs(j.Env).Done()
}

// ErrVersion reports a job of another format version.
var ErrVersion = errors.New("runwire: another version of wsfs")

// ParseJob decodes a job frame's body.
func ParseJob(body []byte) (Job, error) {
	d := NewDecoder(body, KindJob)
	if v := d.Int(); d.err == nil && v != Version {
		return Job{}, fmt.Errorf("runwire: a job of format %d, this server speaks %d: %w", v, Version, ErrVersion)
	}
	j := Job{Workspace: d.Str(), Script: d.Str(), Timeout: time.Duration(d.Int()), Wait: time.Duration(d.Int()),
		WaitSet: d.Bool(), Author: d.Str(), JSON: d.Bool(), Store: d.Str(), Env: d.Strs()}
	return j, d.Err()
}

// Interrupt is the frame a caller sends when it is interrupted (Ctrl-C,
// SIGTERM, SIGHUP): the command is interrupted, and killed at the second.
func Interrupt() []byte { return NewFrame(KindInterrupt).Done() }

// Report is the server's answer to a job: how the command ended, or why
// it did not run.
type Report struct {
	ExitCode int
	// Stdout and Stderr are the last bytes of each stream (Job.JSON).
	Stdout, Stderr []byte
	Truncated      bool
	OutputRef      string
	Revision       int64
	Committed      bool
	Duration       time.Duration
	LimitsHit      []string
	Refusals       []string
	// Signal names the signal that killed the command's worker.
	Signal string
	// Message is a line for the caller's stderr (the worker was killed,
	// the snapshot failed).
	Message string
	// Err is set when the command did not run: ExitCode is then Err.Exit.
	Err *Error
}

// Error is a failure as the caller shows it: a stable code, a message for
// people, and the exit status that goes with it.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Exit    int    `json:"exit"`
}

func (e *Error) Error() string { return e.Message }

// AppendReport encodes r as a frame.
func AppendReport(r Report) []byte {
	e := NewFrame(KindReport).Int(int64(r.ExitCode)).Bytes(r.Stdout).Bytes(r.Stderr).Bool(r.Truncated).Str(r.OutputRef).
		Int(r.Revision).Bool(r.Committed).Int(int64(r.Duration)).Strs(r.LimitsHit).Strs(r.Refusals).Str(r.Signal).Str(r.Message)
	if r.Err != nil {
		e.Bool(true).Str(r.Err.Code).Str(r.Err.Message).Int(int64(r.Err.Exit))
	} else {
		e.Bool(false)
	}
	return e.Done()
}

// ParseReport decodes a report frame's body.
func ParseReport(body []byte) (Report, error) {
	d := NewDecoder(body, KindReport)
	r := Report{ExitCode: int(d.Int()), Stdout: d.Bytes(), Stderr: d.Bytes(), Truncated: d.Bool(), OutputRef: d.Str(),
		Revision: d.Int(), Committed: d.Bool(), Duration: time.Duration(d.Int()), LimitsHit: d.Strs(), Refusals: d.Strs(),
		Signal: d.Str(), Message: d.Str()}
	if d.Bool() {
		r.Err = &Error{Code: d.Str(), Message: d.Str(), Exit: int(d.Int())}
	}
	return r, d.Err()
}

// ReportJSON is what `wsfs run --json` prints.
type ReportJSON struct {
	ExitCode   int      `json:"exit_code"`
	Stdout     string   `json:"stdout"`
	Stderr     string   `json:"stderr"`
	Truncated  bool     `json:"truncated"`
	OutputRef  string   `json:"output_ref"`
	Revision   int64    `json:"revision"`
	Committed  bool     `json:"committed"`
	DurationMS int64    `json:"duration_ms"`
	LimitsHit  []string `json:"limits_hit"`
	Refusals   []string `json:"refusals"`
	Signal     string   `json:"signal,omitempty"`
}

// JSON returns the report as `wsfs run --json` prints it.
func (r Report) JSON() ReportJSON {
	j := ReportJSON{ExitCode: r.ExitCode, Stdout: string(r.Stdout), Stderr: string(r.Stderr), Truncated: r.Truncated,
		OutputRef: r.OutputRef, Revision: r.Revision, Committed: r.Committed, DurationMS: r.Duration.Milliseconds(),
		LimitsHit: r.LimitsHit, Refusals: r.Refusals, Signal: r.Signal}
	if j.LimitsHit == nil {
		j.LimitsHit = []string{}
	}
	if j.Refusals == nil {
		j.Refusals = []string{}
	}
	return j
}

// Error codes: the stable names of the classes of errors, in the control
// socket's JSON errors, in --json errors and in run reports (runsvc
// classifies errors). Add new ones, never rename one.
const (
	CodeNotFound     = "not_found"
	CodeStale        = "stale"
	CodeInvalid      = "invalid"
	CodeExists       = "exists"
	CodeQuota        = "quota"
	CodeInUse        = "in_use"
	CodeGCRunning    = "gc_running"
	CodeStore        = "store"
	CodeCorruptDB    = "corrupt_db"
	CodeBlobNotFound = "blob_not_found"
	CodeBlobCorrupt  = "blob_corrupt"
	CodeBusy         = "busy"     // the server is shutting down
	CodeInternal     = "internal" // anything else
	CodeRunBusy      = "run_busy" // a command did not get its turn within its wait
)

// Exit statuses of the CLI, as `wsfs --help` lists them.
const (
	ExitFailure  = 1 // the operation failed
	ExitUsage    = 2 // bad flags, arguments or names
	ExitStale    = 3 // the workspace moved on, or it is busy
	ExitNotFound = 4 // no such workspace, revision or path
)

// ErrorJSON is what every verb prints with --json when it fails.
type ErrorJSON struct {
	Error Error `json:"error"`
}

// Turn is a command a worker runs: everything it needs, decided by the
// server (the workspace's folder and quotas, the agent's cwd, the
// workspace's history for `history`).
type Turn struct {
	Workspace  string
	Dir        string // the workspace's folder on the mount
	Cwd        string // the agent's folder (/workspace/...)
	Script     string
	Env        []string
	History    []string
	WallTime   time.Duration
	CPUTime    time.Duration
	MaxOutput  int64
	MaxVisible int64
	JSTime     time.Duration
	JSMemory   int64
	JSCache    string
	// Direct says the three streams that come with the turn are the
	// caller's own: the worker writes the output there and sends the
	// server a copy. Otherwise the output goes to the server only.
	Direct bool
	// Tails asks for the last bytes of each stream with Done.
	Tails bool
}

// AppendTurn encodes t as a frame.
func AppendTurn(t Turn) []byte {
	return NewFrame(KindTurn).Str(t.Workspace).Str(t.Dir).Str(t.Cwd).Str(t.Script).Strs(t.Env).Strs(t.History).
		Int(int64(t.WallTime)).Int(int64(t.CPUTime)).Int(t.MaxOutput).Int(t.MaxVisible).Int(int64(t.JSTime)).Int(t.JSMemory).
		Str(t.JSCache).Bool(t.Direct).Bool(t.Tails).Done()
}

// ParseTurn decodes a turn frame's body.
func ParseTurn(body []byte) (Turn, error) {
	d := NewDecoder(body, KindTurn)
	t := Turn{Workspace: d.Str(), Dir: d.Str(), Cwd: d.Str(), Script: d.Str(), Env: d.Strs(), History: d.Strs(),
		WallTime: time.Duration(d.Int()), CPUTime: time.Duration(d.Int()), MaxOutput: d.Int(), MaxVisible: d.Int(),
		JSTime: time.Duration(d.Int()), JSMemory: d.Int(), JSCache: d.Str(), Direct: d.Bool(), Tails: d.Bool()}
	return t, d.Err()
}

// Done is a worker's word that its command ended.
type Done struct {
	ExitCode       int
	Cwd            string // the agent's folder at the end
	Duration       time.Duration
	Truncated      bool
	LimitsHit      []string
	Stdout, Stderr []byte // the tails (Turn.Tails)
	// Again says the worker can take another turn of the same workspace.
	Again bool
	// Retire says why it cannot (for the server's log), when not Again.
	Retire string
}

// AppendDone encodes d as a frame.
func AppendDone(d Done) []byte {
	return NewFrame(KindDone).Int(int64(d.ExitCode)).Str(d.Cwd).Int(int64(d.Duration)).Bool(d.Truncated).Strs(d.LimitsHit).
		Bytes(d.Stdout).Bytes(d.Stderr).Bool(d.Again).Str(d.Retire).Done()
}

// ParseDone decodes a done frame's body.
func ParseDone(body []byte) (Done, error) {
	d := NewDecoder(body, KindDone)
	r := Done{ExitCode: int(d.Int()), Cwd: d.Str(), Duration: time.Duration(d.Int()), Truncated: d.Bool(), LimitsHit: d.Strs(),
		Stdout: d.Bytes(), Stderr: d.Bytes(), Again: d.Bool(), Retire: d.Str()}
	return r, d.Err()
}

// OutputMagic starts a stored output blob; output frames follow.
const OutputMagic = "wsfs-out2\n"

// AppendOutput appends an output frame of kind (KindStdout or KindStderr)
// holding p to b.
func AppendOutput(b []byte, kind byte, p []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(p)+1))
	b = append(b, kind)
	return append(b, p...)
}
