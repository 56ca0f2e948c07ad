package runner

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// confineChildEnv marks the re-exec'd test binary that confines itself.
const confineChildEnv = "WSFS_RUNNER_CONFINE_CHILD"

type confineOutcome struct {
	Report        ConfineReport
	ConfineErr    string
	ReadPasswd    string // "" when reading /etc/passwd failed
	ReadOutside   string
	WriteErr      string
	DialErr       string
	RunStdout     string
	RunExit       int
	RunStderr     string
	BigAllocPanic bool
}

// TestConfineChild is the child half of TestConfineInChildProcess: it
// confines its own process, then reports what it could still do.
func TestConfineChild(t *testing.T) {
	if os.Getenv(confineChildEnv) != "1" {
		t.Skip("runs only as the child of TestConfineInChildProcess")
	}
	ws, scratch, outside, addr := os.Getenv("WS"), os.Getenv("SCRATCH"), os.Getenv("OUTSIDE"), os.Getenv("ADDR")
	var out confineOutcome
	rep, err := Confine(Config{WorkspaceDir: ws, ScratchDir: scratch, Limits: Limits{MaxAddressSpace: 2 << 30}})
	out.Report = rep
	if err != nil {
		out.ConfineErr = err.Error()
	}
	if data, err := os.ReadFile("/etc/passwd"); err == nil {
		out.ReadPasswd = string(data)
	}
	if data, err := os.ReadFile(filepath.Join(outside, "canary")); err == nil {
		out.ReadOutside = string(data)
	}
	if err := os.WriteFile(filepath.Join(ws, "written"), []byte("ok\n"), 0o644); err != nil {
		out.WriteErr = err.Error()
	}
	if c, err := net.DialTimeout("tcp", addr, 2*time.Second); err != nil {
		out.DialErr = err.Error()
	} else {
		c.Close()
	}
	res := Run(context.Background(), Config{Script: "echo hi > f; cat f written; date +%Y >/dev/null; js-exec -c 'console.log(3)'", WorkspaceDir: ws, ScratchDir: scratch})
	out.RunStdout, out.RunExit, out.RunStderr = string(res.Stdout), res.ExitCode, string(res.Stderr)
	data, _ := json.Marshal(out)
	os.Stdout.Write(append([]byte("CONFINE-OUTCOME "), append(data, '\n')...))
}

// TestConfineInChildProcess re-runs the test binary as a child that calls
// Confine and checks what it can still reach: its workspace, and neither
// host files nor a 127.0.0.1 listener where the kernel's Landlock covers
// them.
func TestConfineInChildProcess(t *testing.T) {
	if os.Getenv(confineChildEnv) == "1" {
		t.Skip("child")
	}
	parent := t.TempDir()
	ws, scratch, outside := filepath.Join(parent, "ws"), filepath.Join(parent, "tmp"), filepath.Join(parent, "outside")
	// The child's private folder lands here (a confined process cannot
	// remove its own folder from the parent directory), so cleanup finds it.
	hostTmp := filepath.Join(parent, "hosttmp")
	for _, d := range []string{ws, scratch, outside, hostTmp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "canary"), []byte("canary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go serveAndClose(ln)
	var out confineOutcome
	runChild(t, "TestConfineChild", "CONFINE-OUTCOME ", &out, confineChildEnv+"=1", "TMPDIR="+hostTmp, "WS="+ws, "SCRATCH="+scratch,
		"OUTSIDE="+outside, "ADDR="+ln.Addr().String())
	t.Logf("child: Landlock ABI %d, filesystem %v, network %v, memory %d, cpu %ds",
		out.Report.LandlockABI, out.Report.Filesystem, out.Report.Network, out.Report.MemoryBytes, out.Report.CPUSeconds)
	if out.ConfineErr != "" {
		t.Fatalf("Confine: %s", out.ConfineErr)
	}
	if out.WriteErr != "" {
		t.Errorf("writing in the workspace failed: %s", out.WriteErr)
	}
	if out.RunExit != 0 || out.RunStdout != "hi\nok\n3\n" {
		t.Errorf("Run in the confined child: exit %d stdout %q stderr %q", out.RunExit, out.RunStdout, out.RunStderr)
	}
	if out.Report.MemoryBytes != 2<<30 || out.Report.CPUSeconds != 30 {
		t.Errorf("rlimits: %+v", out.Report)
	}
	if out.Report.LandlockABI == 0 {
		t.Skip("this kernel has no Landlock: file and network confinement not checked (os.Root still confines)")
	}
	if out.ReadPasswd != "" || out.ReadOutside != "" {
		t.Errorf("confined child read host files: passwd %d bytes, canary %q", len(out.ReadPasswd), out.ReadOutside)
	}
	if out.Report.LandlockABI >= 4 && out.DialErr == "" {
		t.Errorf("confined child connected to %s", ln.Addr())
	}
	if out.Report.LandlockABI < 4 {
		t.Logf("Landlock ABI %d has no network rules: connect not checked", out.Report.LandlockABI)
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

// runChild re-runs the test binary as a child that runs only test (with
// env added to the environment) and decodes into out the JSON the child
// printed on the line starting with prefix.
func runChild(t *testing.T, test, prefix string, out any, env ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+test+"$", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	raw, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, raw)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			if err := json.Unmarshal([]byte(rest), out); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("child reported nothing:\n%s", raw)
}
