package testenv

import (
	"os"
	"testing"
)

func TestMissingSkipsOutsideCI(t *testing.T) {
	if os.Getenv("CI") == "true" {
		t.Setenv("CI", "")
	}
	skipped := false
	t.Run("missing", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		Missing(t, "nothing here")
	})
	if !skipped {
		t.Fatal("Missing did not skip without CI=true")
	}
}
