package jsexec

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestMain gives the package's runs a compilation cache that outlives the
// test process (wazero keys it by its own version and the wasm's hash), so
// that only the first test run on a machine compiles QuickJS, and the
// tests with another memory cap reload rather than recompile it.
func TestMain(m *testing.M) {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	testCacheDir = filepath.Join(dir, "wsfs-test", "jsexec-qjs")
	if err := os.MkdirAll(testCacheDir, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}
