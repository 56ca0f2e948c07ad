package runner

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// reuseChildEnv marks the re-exec'd test binary that confines itself as a
// reusable worker.
const reuseChildEnv = "WSFS_RUNNER_REUSE_CHILD"

type reuseOutcome struct {
	Report       ConfineReport
	ConfineErr   string
	ReadRO       string
	WriteROErr   string
	DialErr      string
	SecondTmp    string // what the second command's /tmp held
	LimitErr     string
	CPUSeconds   uint64
	GotSIGXCPU   bool
	BurnedMillis int64
}

// TestConfineReusableChild is the child half of TestConfineReusable.
func TestConfineReusableChild(t *testing.T) {
	if os.Getenv(reuseChildEnv) != "1" {
		t.Skip("runs only as the child of TestConfineReusable")
	}
	ws, scratchRoot, ro, sock := os.Getenv("WS"), os.Getenv("SCRATCH"), os.Getenv("RO"), os.Getenv("SOCK")
	var out reuseOutcome
	cfg := Config{WorkspaceDir: ws, ScratchDir: scratchRoot, ReadOnlyDirs: []string{ro}, Sockets: []string{sock}, Reusable: true,
		Limits: Limits{MaxCPUTime: time.Second}}
	rep, err := Confine(cfg)
	out.Report = rep
	if err != nil {
		out.ConfineErr = err.Error()
	}
	if b, err := os.ReadFile(filepath.Join(ro, "compiled")); err == nil {
		out.ReadRO = string(b)
	}
	if err := os.WriteFile(filepath.Join(ro, "planted"), []byte("x"), 0o644); err != nil {
		out.WriteROErr = err.Error()
	}
	if c, err := net.Dial("unix", sock); err != nil {
		out.DialErr = err.Error()
	} else {
		c.Close()
	}
	// Two commands, each with its own /tmp under the scratch root.
	for i, script := range []string{"echo one > /tmp/left", "ls -A /tmp"} {
		dir, err := os.MkdirTemp(scratchRoot, "job-")
		if err != nil {
			out.ConfineErr = err.Error()
			break
		}
		res := Run(context.Background(), Config{Script: script, WorkspaceDir: ws, ScratchDir: dir})
		if i == 1 {
			out.SecondTmp = string(res.Stdout) + string(res.Stderr)
		}
		os.RemoveAll(dir)
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
	os.Stdout.Write(append([]byte("REUSE-OUTCOME "), append(data, '\n')...))
}

// burnSink keeps the CPU burner's loop from being optimised away.
var burnSink int

// TestConfineReusable: a reusable worker keeps reading its read-only
// folders (js-exec's cache) but cannot write them, may still connect to
// its server's socket, runs each command in a /tmp of its own, and gets
// SIGXCPU when a command uses up its CPU time (LimitCPU), however much
// CPU the worker used before.
func TestConfineReusable(t *testing.T) {
	if os.Getenv(reuseChildEnv) == "1" {
		t.Skip("child")
	}
	parent := t.TempDir()
	ws, scratch, ro, hostTmp := filepath.Join(parent, "ws"), filepath.Join(parent, "tmp"), filepath.Join(parent, "ro"), filepath.Join(parent, "hosttmp")
	for _, d := range []string{ws, scratch, ro, hostTmp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ro, "compiled"), []byte("code"), 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(parent, "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go serveAndClose(ln)
	var out reuseOutcome
	runChild(t, "TestConfineReusableChild", "REUSE-OUTCOME ", &out, reuseChildEnv+"=1", "TMPDIR="+hostTmp, "WS="+ws, "SCRATCH="+scratch,
		"RO="+ro, "SOCK="+sock)
	if out.ConfineErr != "" || out.LimitErr != "" {
		t.Fatalf("Confine: %s; LimitCPU: %s", out.ConfineErr, out.LimitErr)
	}
	if out.SecondTmp != "" {
		t.Errorf("the second command's /tmp held %q", out.SecondTmp)
	}
	if out.DialErr != "" {
		t.Errorf("the worker could not connect to its server's socket: %s", out.DialErr)
	}
	if out.CPUSeconds != 1 || !out.GotSIGXCPU {
		t.Errorf("CPU limit %ds, SIGXCPU %v after %d ms of burning", out.CPUSeconds, out.GotSIGXCPU, out.BurnedMillis)
	}
	if out.Report.LandlockABI == 0 {
		t.Skip("this kernel has no Landlock: read-only folders not checked")
	}
	if out.ReadRO != "code" || out.WriteROErr == "" {
		t.Errorf("read-only folder: read %q, write error %q", out.ReadRO, out.WriteROErr)
	}
	if _, err := os.Stat(filepath.Join(ro, "planted")); err == nil {
		t.Error("the confined worker wrote into its read-only folder")
	}
}
