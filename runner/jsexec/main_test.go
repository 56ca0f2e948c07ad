package jsexec

import (
	"fmt"
	"os"
	"testing"
)

// TestMain gives the package's runs one compilation cache, so that the
// tests with another memory cap reload QuickJS rather than recompile it.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "jsexec-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testCacheDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
