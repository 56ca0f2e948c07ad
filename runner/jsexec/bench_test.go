package jsexec

import (
	"context"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// BenchmarkHello measures one js-exec run end to end after the first
// (which compiles QuickJS's wasm, the cold start).
func BenchmarkHello(b *testing.B) {
	sb := commandtest.New(b)
	fn := Spec(Config{}).Func
	for b.Loop() {
		if r := sb.Run(context.Background(), fn, "", "js-exec", "-c", "console.log(1)"); r.Code != 0 {
			b.Fatalf("%+v", r)
		}
	}
}
