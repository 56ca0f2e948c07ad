// Package runwire is the wire format of the run socket, the fast path of
// `wsfs run`: the small wsfs front sends the server a job (its arguments,
// its folder, a few environment variables) with its stdin, stdout and
// stderr attached (SCM_RIGHTS); the server hands both to a warm worker and
// answers the worker's exit status. The server passes the same job on to
// the worker over the worker's own socket.
//
// Every message is a frame: a 4-byte big-endian length, then a kind byte
// and the fields, strings as a 4-byte length and the bytes. The package
// imports only the standard library, so the front stays small.
package runwire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// SocketName is the run socket's file name inside a wsfs home.
const SocketName = "run.sock"

// Version is the job format's version; a server answers Fallback to a job
// of another version.
const Version = 2

// maxSocketPath is the longest unix socket path Linux takes.
const maxSocketPath = 107

// SocketPath returns where the server of home takes run jobs:
// home/run.sock, or, when that is too long for a unix socket address (the
// server binds in a private folder beside it first), a short path keyed by
// a hash of home: under /run/wsfs for root, else under the temp folder.
// It mirrors api.SocketPath and creates nothing.
func SocketPath(home string) string {
	if len(filepath.Join(home, ".s000000", "s")) <= maxSocketPath {
		return filepath.Join(home, SocketName)
	}
	h := fnv.New64a()
	h.Write([]byte(home))
	name := "wsfs-" + strconv.FormatUint(h.Sum64(), 16) + "-run.sock"
	if os.Getuid() == 0 {
		return filepath.Join("/run/wsfs", name)
	}
	return filepath.Join(os.TempDir(), "wsfs-"+strconv.Itoa(os.Getuid()), name)
}

// ForwardedEnv names the caller's environment variables a job carries:
// the worker sees them as the caller set them (or unset).
var ForwardedEnv = []string{"USER", "LOGNAME", "TZ", "WSFS_DEBUG", "WSFS_NO_CONFINE"}

// Frame kinds.
const (
	kindJob       = 'J'
	kindStatus    = 'S'
	kindInterrupt = 'I'
	kindReady     = 'R'
)

// Job is one `wsfs run` for a warm worker.
type Job struct {
	Version int
	Args    []string // the arguments after "run"
	Cwd     string   // the caller's folder (a relative -f FILE is read from it)
	Env     []string // KEY=VALUE for each ForwardedEnv variable the caller has set
	// UID is the caller's user ID, as the server saw it on the socket
	// (the default author); a front's value is ignored.
	UID int
	// Script is the content of the script file Args name with -f (not
	// -f -), read by the caller: the worker, confined to a workspace,
	// cannot read the caller's files (nor should it read them with the
	// server's rights). HasScript tells an empty file from none;
	// ScriptErr says why the file did not read.
	Script    string
	HasScript bool
	ScriptErr string
}

// Status is the server's answer: the command's exit status.
type Status struct {
	Code int
	// Message is a line for the caller's stderr (a worker killed by a
	// signal, a server that could not take the job).
	Message string
	// Fallback says nothing ran: the caller must run the command the slow
	// way (exec wsfs-core run).
	Fallback bool
	// Again, from a worker to its server, says the worker can take
	// another job of the same workspace; the server never sends it on.
	Again bool
}

// MaxFrame bounds a frame (a script given as an argument may be long).
const MaxFrame = 16 << 20

// ErrFormat reports a frame that does not parse.
var ErrFormat = errors.New("runwire: bad frame")

type encoder struct{ b []byte }

func (e *encoder) u32(n int) { e.b = binary.BigEndian.AppendUint32(e.b, uint32(n)) }
func (e *encoder) str(s string) {
	e.u32(len(s))
	e.b = append(e.b, s...)
}
func (e *encoder) strs(ss []string) {
	e.u32(len(ss))
	for _, s := range ss {
		e.str(s)
	}
}

// frame starts a frame of kind; done fills in its length.
func frame(kind byte) *encoder { return &encoder{b: []byte{0, 0, 0, 0, kind}} }

func (e *encoder) done() []byte {
	binary.BigEndian.PutUint32(e.b, uint32(len(e.b)-4))
	return e.b
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) u32() int {
	if len(d.b) < 4 {
		d.err = ErrFormat
		return 0
	}
	n := binary.BigEndian.Uint32(d.b)
	d.b = d.b[4:]
	return int(n)
}

func (d *decoder) str() string {
	n := d.u32()
	if d.err != nil || n > len(d.b) {
		d.err = ErrFormat
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) strs() []string {
	n := d.u32()
	if d.err != nil || n > len(d.b)/4 {
		d.err = ErrFormat
		return nil
	}
	ss := make([]string, 0, n)
	for range n {
		ss = append(ss, d.str())
	}
	return ss
}

// AppendJob encodes j as a frame.
func AppendJob(j Job) []byte {
	e := frame(kindJob)
	e.u32(Version)
	e.u32(j.UID + 1) // -1 (unknown) encodes as 0
	e.str(j.Cwd)
	e.strs(j.Args)
	e.strs(j.Env)
	hasScript := 0
	if j.HasScript {
		hasScript = 1
	}
	e.u32(hasScript)
	e.str(j.Script)
	e.str(j.ScriptErr)
	return e.done()
}

// ParseJob decodes a job frame's body (as ReadFrame returns it). A job of
// another Version returns its version and ErrVersion.
func ParseJob(body []byte) (Job, error) {
	if len(body) < 1 || body[0] != kindJob {
		return Job{}, fmt.Errorf("%w: not a job", ErrFormat)
	}
	d := &decoder{b: body[1:]}
	j := Job{Version: d.u32()}
	if d.err == nil && j.Version != Version {
		return j, fmt.Errorf("runwire: job version %d, this server speaks %d: %w", j.Version, Version, ErrVersion)
	}
	j.UID = d.u32() - 1
	j.Cwd = d.str()
	j.Args = d.strs()
	j.Env = d.strs()
	j.HasScript = d.u32() == 1
	j.Script = d.str()
	j.ScriptErr = d.str()
	if d.err != nil || len(d.b) != 0 {
		return Job{}, fmt.Errorf("%w: job", ErrFormat)
	}
	return j, nil
}

// ErrVersion reports a job of another format version.
var ErrVersion = errors.New("runwire: unknown version")

// AppendStatus encodes s as a frame.
func AppendStatus(s Status) []byte {
	e := frame(kindStatus)
	e.u32(s.Code)
	flags := 0
	if s.Fallback {
		flags |= statusFallback
	}
	if s.Again {
		flags |= statusAgain
	}
	e.u32(flags)
	e.str(s.Message)
	return e.done()
}

// ParseStatus decodes a status frame's body.
func ParseStatus(body []byte) (Status, error) {
	if len(body) < 1 || body[0] != kindStatus {
		return Status{}, fmt.Errorf("%w: not a status", ErrFormat)
	}
	d := &decoder{b: body[1:]}
	s := Status{Code: int(int32(d.u32()))}
	flags := d.u32()
	s.Fallback, s.Again = flags&statusFallback != 0, flags&statusAgain != 0
	s.Message = d.str()
	if d.err != nil || len(d.b) != 0 {
		return Status{}, fmt.Errorf("%w: status", ErrFormat)
	}
	return s, nil
}

// Status flags.
const (
	statusFallback = 1 << iota
	statusAgain
)

// Interrupt is the frame a front sends when it is interrupted (Ctrl-C,
// SIGTERM): the server interrupts the worker, and kills it at the second.
func Interrupt() []byte { return frame(kindInterrupt).done() }

// IsInterrupt reports an interrupt frame's body.
func IsInterrupt(body []byte) bool { return len(body) == 1 && body[0] == kindInterrupt }

// Ready is the frame a warm worker sends its server once it has started
// and waits for a job.
func Ready() []byte { return frame(kindReady).done() }

// IsReady reports a ready frame's body.
func IsReady(body []byte) bool { return len(body) == 1 && body[0] == kindReady }

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

// RunArgs is what a front and a server need to know of `wsfs run`'s
// arguments without parsing them fully (wsfs-core does that).
type RunArgs struct {
	Home      string // --home's value, "" when not given
	Workspace string // -w or --workspace
	File      string // -f's value ("-": stdin)
}

// Run's flags (and the global ones wsfs-core takes with them): those that
// take a value, and the boolean ones.
var (
	runValueFlags = map[string]bool{"w": true, "workspace": true, "timeout": true, "wait": true, "f": true,
		"author": true, "store": true, "home": true}
	runBoolFlags = map[string]bool{"json": true}
)

// ParseRunArgs walks the arguments after "run" as wsfs-core's flag parser
// would (flags anywhere up to "--"). It
// reports false for a flag it does not know (help included) and for a
// value flag missing its value: wsfs-core must handle those.
func ParseRunArgs(args []string) (RunArgs, bool) {
	var ra RunArgs
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			break
		}
		if len(arg) < 2 || arg[0] != '-' {
			continue // positional: wsfs-core takes flags anywhere
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-"), "=")
		switch {
		case runBoolFlags[name]:
		case runValueFlags[name]:
			if !hasValue {
				if i+1 >= len(args) {
					return RunArgs{}, false
				}
				i++
				value = args[i]
			}
			switch name {
			case "home":
				ra.Home = value
			case "w", "workspace":
				ra.Workspace = value
			case "f":
				ra.File = value
			}
		default:
			return RunArgs{}, false
		}
	}
	return ra, true
}
