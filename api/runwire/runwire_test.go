package runwire

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestJobAndStatusRoundTrip(t *testing.T) {
	job := Job{Version: Version, Args: []string{"-w", "acme/a", "echo 'hi'\n", ""}, Cwd: "/home/x y", Env: []string{"USER=x"}, UID: 0,
		Script: "echo from a file\n", HasScript: true, ScriptErr: "none"}
	var buf bytes.Buffer
	buf.Write(AppendJob(job))
	buf.Write(AppendStatus(Status{Code: 130, Message: "cancelled"}))
	buf.Write(AppendStatus(Status{Code: -1, Fallback: true, Again: true}))
	buf.Write(Interrupt())
	buf.Write(Ready())
	body, err := ReadFrame(&buf)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseJob(body)
	if err != nil || !reflect.DeepEqual(got, job) {
		t.Fatalf("job: %+v %v, want %+v", got, err, job)
	}
	if body, err = ReadFrame(&buf); err != nil {
		t.Fatal(err)
	}
	if st, err := ParseStatus(body); err != nil || st != (Status{Code: 130, Message: "cancelled"}) {
		t.Fatalf("status: %+v %v", st, err)
	}
	if body, err = ReadFrame(&buf); err != nil {
		t.Fatal(err)
	}
	if st, err := ParseStatus(body); err != nil || st != (Status{Code: -1, Fallback: true, Again: true}) {
		t.Fatalf("status with flags: %+v %v", st, err)
	}
	if body, _ = ReadFrame(&buf); !IsInterrupt(body) {
		t.Fatalf("interrupt: %q", body)
	}
	if body, _ = ReadFrame(&buf); !IsReady(body) {
		t.Fatalf("ready: %q", body)
	}
	if _, err := ReadFrame(&buf); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last frame: %v", err)
	}
	// An unknown UID (a front's -1) survives the trip too.
	if got, err := ParseJob(AppendJob(Job{UID: -1})[4:]); err != nil || got.UID != -1 || got.Version != Version {
		t.Fatalf("uid -1: %+v %v", got, err)
	}
}

func TestBadFrames(t *testing.T) {
	job := AppendJob(Job{Args: []string{"echo hi"}})
	for name, in := range map[string][]byte{
		"cut job":       job[:len(job)-2],
		"empty frame":   {0, 0, 0, 0},
		"huge frame":    {0xff, 0xff, 0xff, 0xff, 'J'},
		"cut length":    {0, 0},
		"count too big": append([]byte{0, 0, 0, 13, 'J', 0, 0, 0, 1, 0, 0, 0, 0}, 0, 0, 0xff, 0xff),
	} {
		body, err := ReadFrame(bytes.NewReader(in))
		if err == nil {
			_, err = ParseJob(body)
		}
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := ParseStatus(job[4:]); !errors.Is(err, ErrFormat) {
		t.Errorf("a job read as a status: %v", err)
	}
	other := AppendJob(Job{})
	other[8] = 9 // version 9
	if _, err := ParseJob(other[4:]); !errors.Is(err, ErrVersion) {
		t.Errorf("version 9: %v", err)
	}
}

func TestSocketPath(t *testing.T) {
	if got := SocketPath("/tmp/h"); got != "/tmp/h/run.sock" {
		t.Fatalf("short home: %q", got)
	}
	long := "/tmp/" + strings.Repeat("x", 120)
	p := SocketPath(long)
	if len(p) > maxSocketPath || strings.HasPrefix(p, long) || p != SocketPath(long) || p == SocketPath(long+"y") {
		t.Fatalf("long home: %q", p)
	}
}

func TestParseRunArgs(t *testing.T) {
	for _, c := range []struct {
		args []string
		want RunArgs
		ok   bool
	}{
		{[]string{"-w", "acme/a", "echo hi"}, RunArgs{Workspace: "acme/a"}, true},
		{[]string{"echo hi", "--workspace=acme/b", "--json"}, RunArgs{Workspace: "acme/b"}, true},
		{[]string{"--home", "/h", "-w=acme/c", "-f", "s.sh", "--timeout", "2s"}, RunArgs{Home: "/h", Workspace: "acme/c", File: "s.sh"}, true},
		{[]string{"-w", "acme/a", "--", "-f", "x"}, RunArgs{Workspace: "acme/a"}, true},
		{[]string{"-w", "acme/a", "--help"}, RunArgs{}, false},
		{[]string{"-w", "acme/a", "--bogus"}, RunArgs{}, false},
		{[]string{"-w"}, RunArgs{}, false},
		{[]string{"-f", "-", "-w", "acme/a"}, RunArgs{Workspace: "acme/a", File: "-"}, true},
	} {
		got, ok := ParseRunArgs(c.args)
		if ok != c.ok || got != c.want {
			t.Errorf("ParseRunArgs(%q) = %+v, %v; want %+v, %v", c.args, got, ok, c.want, c.ok)
		}
	}
}
