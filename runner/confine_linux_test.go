package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// confineChildEnv marks the test binary started confined by
// TestStartConfined.
const confineChildEnv = "WSFS_RUNNER_CONFINE_CHILD"

type confineOutcome struct {
	ReadPasswd   string // "" when reading /etc/passwd failed
	ReadOutside  string
	ReadRO       string
	WriteROErr   string
	WriteErr     string
	DialErr      string
	ExecErr      string
	RunStdout    string
	RunExit      int
	RunStderr    string
	SecondTmp    string // what the second command's /tmp held
	LimitErr     string
	CPUSeconds   uint64
	GotSIGXCPU   bool
	BurnedMillis int64
	Threads      int
}

// TestConfinedChild is the child half of TestStartConfined: started
// confined, it reports what it can still do, runs two commands with a /tmp
// each, then burns CPU until its CPU limit's SIGXCPU.
func TestConfinedChild(t *testing.T) {
	if os.Getenv(confineChildEnv) != "1" {
		t.Skip("runs only as the child of TestStartConfined")
	}
	ws, private, outside, ro, addr := os.Getenv("WS"), os.Getenv("PRIVATE"), os.Getenv("OUTSIDE"), os.Getenv("RO"), os.Getenv("ADDR")
	var out confineOutcome
	if _, err := LimitProcess(Limits{MaxAddressSpace: 2 << 30}); err != nil {
		out.LimitErr = err.Error()
	}
	if data, err := os.ReadFile("/etc/passwd"); err == nil {
		out.ReadPasswd = string(data)
	}
	if data, err := os.ReadFile(filepath.Join(outside, "canary")); err == nil {
		out.ReadOutside = string(data)
	}
	if b, err := os.ReadFile(filepath.Join(ro, "compiled")); err == nil {
		out.ReadRO = string(b)
	}
	if err := os.WriteFile(filepath.Join(ro, "planted"), []byte("x"), 0o644); err != nil {
		out.WriteROErr = err.Error()
	}
	if err := os.WriteFile(filepath.Join(ws, "written"), []byte("ok\n"), 0o644); err != nil {
		out.WriteErr = err.Error()
	}
	if c, err := net.DialTimeout("tcp", addr, 2*time.Second); err != nil {
		out.DialErr = err.Error()
	} else {
		c.Close()
	}
	if err := exec.Command("/bin/true").Run(); err != nil {
		out.ExecErr = err.Error()
	}
	// Threads started now (the commands' goroutines need some) are
	// confined as well: they come from confined ones.
	for i, script := range []string{"echo hi > f; cat f written; date +%Y >/dev/null; echo one > /tmp/left; js-exec -c 'console.log(3)'", "ls -A /tmp"} {
		dir, err := os.MkdirTemp(private, "job-")
		if err != nil {
			out.WriteErr = err.Error()
			break
		}
		res := Run(context.Background(), Config{Script: script, WorkspaceDir: ws, ScratchDir: dir})
		if i == 0 {
			out.RunStdout, out.RunExit, out.RunStderr = string(res.Stdout), res.ExitCode, string(res.Stderr)
		} else {
			out.SecondTmp = string(res.Stdout) + string(res.Stderr)
		}
		os.RemoveAll(dir)
	}
	if ents, err := os.ReadDir("/proc/self/task"); err == nil {
		out.Threads = len(ents)
	}
	// The CPU limit counts from now: burn CPU until SIGXCPU comes.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGXCPU)
	cpu, err := LimitCPU(Limits{MaxCPUTime: time.Second})
	out.CPUSeconds = cpu
	if err != nil {
		out.LimitErr = err.Error()
	}
	start := time.Now()
	deadline := start.Add(20 * time.Second)
	for !out.GotSIGXCPU && time.Now().Before(deadline) {
		for i := range 1 << 20 {
			burnSink += i
		}
		select {
		case <-sigs:
			out.GotSIGXCPU = true
		default:
		}
	}
	out.BurnedMillis = time.Since(start).Milliseconds()
	data, _ := json.Marshal(out)
	os.Stdout.Write(append([]byte("CONFINE-OUTCOME "), append(data, '\n')...))
}

// burnSink keeps the CPU burner's loop from being optimised away.
var burnSink int

// TestStartConfined starts the test binary confined to a workspace, a
// private folder and a read-only one, and checks what it can reach: those
// folders, and neither host files nor a 127.0.0.1 listener nor another
// program, where the kernel's Landlock covers them; each command gets its
// own /tmp, and SIGXCPU comes when a command uses up its CPU time.
func TestStartConfined(t *testing.T) {
	if os.Getenv(confineChildEnv) == "1" {
		t.Skip("child")
	}
	parent := t.TempDir()
	ws, private, outside, ro := filepath.Join(parent, "ws"), filepath.Join(parent, "private"), filepath.Join(parent, "outside"), filepath.Join(parent, "ro")
	for _, d := range []string{ws, private, outside, ro} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "canary"), []byte("canary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ro, "compiled"), []byte("code"), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go serveAndClose(ln)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestConfinedChild$", "-test.v")
	cmd.Env = append(os.Environ(), confineChildEnv+"=1", "TMPDIR="+private, "WS="+ws, "PRIVATE="+private,
		"OUTSIDE="+outside, "RO="+ro, "ADDR="+ln.Addr().String())
	var raw bytes.Buffer
	cmd.Stdout, cmd.Stderr = &raw, &raw
	rep, err := StartConfined(cmd, Confinement{ReadWrite: []string{ws, private}, ReadOnly: []string{ro}}, nil)
	if err != nil {
		t.Fatalf("StartConfined: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v\n%s", err, raw.String())
	}
	var out confineOutcome
	for _, line := range strings.Split(raw.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "CONFINE-OUTCOME "); ok {
			if err := json.Unmarshal([]byte(rest), &out); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("child: Landlock ABI %d, filesystem %v, network %v, %d threads", rep.LandlockABI, rep.Filesystem, rep.Network, out.Threads)
	if out.WriteErr != "" || out.LimitErr != "" {
		t.Fatalf("writing in the workspace: %q; limits: %q", out.WriteErr, out.LimitErr)
	}
	if out.RunExit != 0 || out.RunStdout != "hi\nok\n3\n" {
		t.Errorf("Run in the confined child: exit %d stdout %q stderr %q", out.RunExit, out.RunStdout, out.RunStderr)
	}
	if out.SecondTmp != "" {
		t.Errorf("the second command's /tmp held %q", out.SecondTmp)
	}
	if out.CPUSeconds != 1 || !out.GotSIGXCPU {
		t.Errorf("CPU limit %ds, SIGXCPU %v after %d ms of burning", out.CPUSeconds, out.GotSIGXCPU, out.BurnedMillis)
	}
	if rep.LandlockABI == 0 {
		t.Skip("this kernel has no Landlock: file and network confinement not checked (os.Root still confines)")
	}
	if out.ReadPasswd != "" || out.ReadOutside != "" {
		t.Errorf("confined child read host files: passwd %d bytes, canary %q", len(out.ReadPasswd), out.ReadOutside)
	}
	if out.ReadRO != "code" || out.WriteROErr == "" {
		t.Errorf("read-only folder: read %q, write error %q", out.ReadRO, out.WriteROErr)
	}
	if _, err := os.Stat(filepath.Join(ro, "planted")); err == nil {
		t.Error("the confined child wrote into its read-only folder")
	}
	if out.ExecErr == "" {
		t.Error("the confined child ran /bin/true")
	}
	if rep.LandlockABI >= 4 && out.DialErr == "" {
		t.Errorf("confined child connected to %s", ln.Addr())
	}
}

// serveAndClose accepts connections on ln and closes them, until ln is
// closed: something for a confined child to try to reach.
func serveAndClose(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.Close()
	}
}
