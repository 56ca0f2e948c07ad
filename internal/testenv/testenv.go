// Package testenv holds the rule every wsfs test follows when something it
// needs is missing from the machine: skip with the reason, except under
// CI=true, where the missing piece fails the test (CI installs everything
// a test needs, so a skip there would hide a broken set-up).
package testenv

import (
	"fmt"
	"os"
	"testing"
)

// Missing skips t, or fails it under CI=true, saying why.
func Missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// RequireFUSE stops t (see Missing) without /dev/fuse or root: wsfs
// mounts with go-fuse's DirectMount.
func RequireFUSE(t testing.TB) {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		Missing(t, fmt.Sprintf("FUSE tests need /dev/fuse: %v", err))
	} else if os.Getuid() != 0 {
		Missing(t, "FUSE tests mount directly (DirectMount) and need root")
	}
}
