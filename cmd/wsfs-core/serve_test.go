package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wsfs/wsfs/api"
	"github.com/wsfs/wsfs/internal/home"
)

// startServe runs `wsfs serve --listen 127.0.0.1:0 args...` and returns
// it with the API's URL.
func startServe(t *testing.T, args ...string) (*server, string) {
	t.Helper()
	requireFUSE(t)
	h := filepath.Join(t.TempDir(), "home")
	mnt := home.Of(h).SharedMount()
	mountDirsMu.Lock()
	mountDirs = append(mountDirs, mnt)
	mountDirsMu.Unlock()
	s := startVerb(t, h, mnt, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	url, ok := strings.CutPrefix(s.line, "wsfs: serving the API on ")
	url, _, _ = strings.Cut(url, " ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("readiness line %q", s.line)
	}
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			if err := s.stop(syscall.SIGTERM); err != nil {
				t.Errorf("wsfs serve: %v\n%s", err, s.stderr)
			}
		}
	})
	return s, url
}

func TestServe(t *testing.T) {
	s, url := startServe(t)
	info, err := api.ReadInfo(s.home)
	if err != nil || len(info.Listen) != 1 || info.Listen[0] != url {
		t.Fatalf("server.json: %+v %v", info, err)
	}
	// A key made with the CLI (through the server's socket) opens the API.
	secret, errs, code := wsfsBin(t, s.home, "", "key", "create", "--tenant", "acme", "--scope", "read")
	if code != 0 {
		t.Fatalf("key create: %d %s", code, errs)
	}
	req, _ := http.NewRequest("GET", url+"/v1/whoami", nil)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(secret))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var me api.Whoami
	json.NewDecoder(resp.Body).Decode(&me)
	resp.Body.Close()
	if resp.StatusCode != 200 || me.Tenant != "acme" {
		t.Fatalf("whoami: %s %+v", resp.Status, me)
	}
	// The request log names the key's ID, never its secret.
	if logs := s.stderr.String(); !strings.Contains(logs, "key="+me.Key.ID) || strings.Contains(logs, strings.TrimSpace(secret)) {
		t.Fatalf("server log:\n%s", logs)
	}
	// wsfs umount without a folder stops the home's server.
	if out, errs, code := wsfsBin(t, s.home, "", "umount"); code != 0 {
		t.Fatalf("umount: %d %s %s", code, out, errs)
	}
	if err := s.wait(); err != nil {
		t.Fatalf("wsfs serve exited with %v\n%s", err, s.stderr)
	}
	if _, err := os.Stat(api.SocketPath(s.home)); !os.IsNotExist(err) {
		t.Fatalf("socket left: %v", err)
	}
}

func TestServeRefusesPlainHTTPOffLoopback(t *testing.T) {
	h := t.TempDir()
	_, errs, code := wsfsBin(t, h, "", "serve", "--listen", "0.0.0.0:0")
	if code != exitUsage || !strings.Contains(errs, "--tls-cert") || !strings.Contains(errs, "--insecure-listen") {
		t.Fatalf("serve on 0.0.0.0 without TLS: exit %d, %s", code, errs)
	}
	_, errs, code = wsfsBin(t, h, "", "serve")
	if code != exitUsage || !strings.Contains(errs, "--listen ADDR is required") {
		t.Fatalf("serve without --listen: exit %d, %s", code, errs)
	}
}
