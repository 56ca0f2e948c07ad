package boltkv_test

import (
	"path/filepath"
	"testing"

	"github.com/wsfs/wsfs/meta/kv"
	"github.com/wsfs/wsfs/meta/kv/boltkv"
	"github.com/wsfs/wsfs/meta/kv/kvtest"
)

func TestConformance(t *testing.T) {
	kvtest.Run(t, func(t *testing.T) kv.Engine {
		e, err := boltkv.Open(filepath.Join(t.TempDir(), "meta.db"), boltkv.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		return e
	})
}
