package runwire

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestFramesRoundTrip(t *testing.T) {
	job := Job{Workspace: "acme/a", Script: "echo 'hi'\n", Timeout: time.Second, Wait: 0, WaitSet: true, Author: "ann",
		JSON: true, Store: "file:///x", Env: []string{"USER=x", "TZ="}}
	rep := Report{ExitCode: 137, Stdout: []byte("o"), Truncated: true, OutputRef: "ab", Revision: 7, Committed: true,
		Duration: time.Millisecond, LimitsHit: []string{"l"}, Refusals: []string{"r1", "r2"}, Signal: "SIGKILL", Message: "m",
		Err: &Error{Code: CodeStore, Message: "down", Exit: 1}}
	turn := Turn{Workspace: "acme/a", Dir: "/mnt/acme/a", Cwd: "/workspace/x", Script: "ls", Env: []string{"TZ=UTC"},
		History: []string{"a", "b"}, WallTime: time.Second, CPUTime: 2 * time.Second, MaxOutput: 10, MaxVisible: 20,
		JSTime: 3, JSMemory: 4, JSCache: "/c", Direct: true, Tails: true}
	done := Done{ExitCode: -1, Cwd: "/workspace", Duration: 5, Truncated: true, LimitsHit: []string{"x"}, Stdout: []byte("s"),
		Stderr: []byte("e"), Again: true, Retire: "r"}
	var buf bytes.Buffer
	buf.Write(AppendJob(job))
	buf.Write(AppendReport(rep))
	buf.Write(AppendTurn(turn))
	buf.Write(AppendDone(done))
	buf.Write(Interrupt())
	buf.Write(AppendOutput(nil, KindStderr, []byte("err")))
	read := func() []byte {
		t.Helper()
		b, err := ReadFrame(&buf)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if got, err := ParseJob(read()); err != nil || !reflect.DeepEqual(got, job) {
		t.Errorf("job: %+v %v", got, err)
	}
	if got, err := ParseReport(read()); err != nil || !reflect.DeepEqual(got, rep) {
		t.Errorf("report: %+v %v, want %+v", got, err, rep)
	}
	if got, err := ParseTurn(read()); err != nil || !reflect.DeepEqual(got, turn) {
		t.Errorf("turn: %+v %v", got, err)
	}
	if got, err := ParseDone(read()); err != nil || !reflect.DeepEqual(got, done) {
		t.Errorf("done: %+v %v", got, err)
	}
	if b := read(); Kind(b) != KindInterrupt {
		t.Errorf("interrupt: %q", b)
	}
	if b := read(); Kind(b) != KindStderr || string(b[1:]) != "err" {
		t.Errorf("output: %q", b)
	}
	if _, err := ReadFrame(&buf); !errors.Is(err, io.EOF) {
		t.Errorf("after the last frame: %v", err)
	}
}

func TestBadFrames(t *testing.T) {
	job := AppendJob(Job{Workspace: "a/b", Script: "x"})
	for name, in := range map[string][]byte{
		"cut job":     job[:len(job)-2],
		"empty frame": {0, 0, 0, 0},
		"huge frame":  {0xff, 0xff, 0xff, 0xff, 'J'},
		"cut length":  {0, 0},
	} {
		body, err := ReadFrame(bytes.NewReader(in))
		if err == nil {
			_, err = ParseJob(body)
		}
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// A string longer than its frame, a job of another version, and
	// fields left over.
	if _, err := ParseJob(NewFrame(KindJob).Int(Version).Int(1 << 30).Done()[4:]); !errors.Is(err, ErrFormat) {
		t.Errorf("long string: %v", err)
	}
	if _, err := ParseJob(NewFrame(KindJob).Int(Version + 1).Done()[4:]); !errors.Is(err, ErrVersion) {
		t.Errorf("other version: %v", err)
	}
	if _, err := ParseDone(append(AppendDone(Done{})[4:], 0)); !errors.Is(err, ErrFormat) {
		t.Errorf("extra bytes: %v", err)
	}
	if _, err := ParseReport(AppendJob(Job{})[4:]); !errors.Is(err, ErrFormat) {
		t.Errorf("a job read as a report: %v", err)
	}
}

func TestParseArgs(t *testing.T) {
	t.Setenv("WSFS_STORE", "")
	a, err := ParseArgs([]string{"-w", "acme/a", "ls -l", "--json", "--timeout=2s", "--wait", "0", "--home", "/h", "--author", "me"})
	if err != nil || a.Job.Workspace != "acme/a" || !a.Job.JSON || a.Job.Timeout != 2*time.Second || !a.Job.WaitSet || a.Job.Wait != 0 ||
		a.Home != "/h" || a.Job.Author != "me" || !reflect.DeepEqual(a.Words, []string{"ls -l"}) {
		t.Fatalf("%+v %v", a, err)
	}
	if a, _ := ParseArgs([]string{"-w", "a/b", "--", "--json"}); a.Job.JSON || !reflect.DeepEqual(a.Words, []string{"--json"}) {
		t.Errorf("after --: %+v", a)
	}
	if a, err := ParseArgs([]string{"--help"}); err != nil || !a.Help {
		t.Errorf("--help: %+v %v", a, err)
	}
	for args, msg := range map[string]string{
		"echo":                   "-w TENANT/NAME is required",
		"-w a/b --timeout -1s x": "--timeout -1s",
		"-w a/b --wait -2s x":    "--wait -2s",
		"-w a/b --wait soon x":   `flag --wait: "soon" is not a valid value`,
		"-w a/b --bogus x":       "unknown flag --bogus",
		"-w a/b -f s.sh x":       "not both",
	} {
		_, err := ParseArgs(strings.Fields(args))
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v, want a usage error with %q", args, err, msg)
		}
	}
}

func TestLoadScript(t *testing.T) {
	a := Args{}
	if fromStdin, err := a.LoadScript(strings.NewReader("echo from stdin\n")); err != nil || !fromStdin || a.Job.Script != "echo from stdin\n" {
		t.Errorf("stdin: %v %v %q", fromStdin, err, a.Job.Script)
	}
	a = Args{}
	if _, err := a.LoadScript(strings.NewReader(strings.Repeat("x", MaxScript+1))); err == nil || !strings.Contains(err.Error(), "8 MiB") {
		t.Errorf("a script over the limit: %v", err)
	}
	a = Args{Words: []string{strings.Repeat("y", MaxScript+1)}}
	if _, err := a.LoadScript(nil); err == nil || !strings.Contains(err.Error(), "8.0 MiB, over the 8 MiB") {
		t.Errorf("an argument over the limit: %v", err)
	}
	a = Args{}
	if _, err := a.LoadScript(strings.NewReader(" \n")); err == nil || !strings.Contains(err.Error(), "no script") {
		t.Errorf("an empty script: %v", err)
	}
	// Several MiB is fine.
	a = Args{}
	if _, err := a.LoadScript(strings.NewReader(strings.Repeat("# comment\n", 500_000))); err != nil {
		t.Errorf("a 5 MB script: %v", err)
	}
}

func TestLeadingGlobals(t *testing.T) {
	for _, tc := range []struct {
		args          string
		globals, rest string
		err           string
	}{
		{"ls", "", "ls", ""},
		{"--store s3://b/p ls --json", "--store=s3://b/p", "ls --json", ""},
		{"-store=/x --home /h log a/b", "--store=/x --home=/h", "log a/b", ""},
		{"--home /h --help", "--home=/h", "--help", ""},
		{"--home /h -- ls", "--home=/h", "ls", ""},
		{"--frob ls", "", "", "unknown flag --frob before the command"},
		{"-x ls", "", "", "unknown flag -x"},
		{"--store", "", "", "flag --store needs a value"},
	} {
		globals, rest, err := LeadingGlobals(strings.Fields(tc.args))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || strings.Join(globals, " ") != tc.globals || strings.Join(rest, " ") != tc.rest {
			t.Errorf("%q: %q %q %v, want %q %q", tc.args, globals, rest, err, tc.globals, tc.rest)
		}
	}
}

func TestFlagError(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Int("limit", 0, "")
	fs.Bool("json", false, "")
	for args, want := range map[string]string{
		"--frob":       "unknown flag --frob",
		"-z":           "unknown flag -z",
		"--limit":      "flag --limit needs a value",
		"--limit=x":    `flag --limit: "x" is not a valid value`,
		"--limit=9e99": `flag --limit: "9e99" is not a valid value`,
		"--json=maybe": `flag --json takes no value but true or false, not "maybe"`,
		"---x":         "---x is not a flag",
	} {
		err := fs.Parse([]string{args})
		if err == nil || FlagError(err) != want && !strings.HasPrefix(FlagError(err), want) {
			t.Errorf("%s: %v → %q, want %q", args, err, FlagError(err), want)
		}
	}
}

func TestUserMessage(t *testing.T) {
	for in, want := range map[string]string{
		"meta: workspace acme/x: not found":                         "workspace acme/x: not found",
		"meta: gc: api: storeurl: store \"s4://x\": unknown scheme": "gc: store \"s4://x\": unknown scheme",
		"open: s3: check on s3://b/p (h): cannot reach h":           "open: check on s3://b/p (h): cannot reach h",
		"x (meta: y); objects: z\nfusefs: w":                        "x (y); z\nw",
		"s3://bucket/prefix is fine; metadata: stays; a kv: b":      "s3://bucket/prefix is fine; metadata: stays; a kv: b",
	} {
		if got := UserMessage(in); got != want {
			t.Errorf("UserMessage(%q) = %q, want %q", in, got, want)
		}
	}
}
