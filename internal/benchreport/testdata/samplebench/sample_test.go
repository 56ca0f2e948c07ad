package samplebench

import (
	"os"
	"testing"
)

func BenchmarkRun(b *testing.B) {
	b.Run("wsfs-echo", func(b *testing.B) {
		for b.Loop() {
		}
		b.ReportMetric(0.5, "p50-ms")
	})
	b.Run("justbash-echo", func(b *testing.B) { b.Skip("just-bash is not installed") })
	b.Run("here", func(b *testing.B) {
		// go test runs a package's tests in its folder.
		if _, err := os.Stat("doc.go"); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
		}
	})
}

func BenchmarkBroken(b *testing.B) { b.Fatal("store: connection refused") }
