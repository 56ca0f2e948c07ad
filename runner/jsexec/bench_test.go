package jsexec

import (
	"context"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// BenchmarkHello measures one warm js-exec run end to end; the first run
// of a process (compiling QuickJS's wasm, the cold start) is kept out.
func BenchmarkHello(b *testing.B) {
	sb := commandtest.New(b)
	fn := Spec(Config{}).Func
	if r := sb.Run(context.Background(), fn, "", "js-exec", "-c", "1"); r.Code != 0 {
		b.Fatalf("warm-up: %+v", r)
	}
	for b.Loop() {
		if r := sb.Run(context.Background(), fn, "", "js-exec", "-c", "console.log(1)"); r.Code != 0 {
			b.Fatalf("%+v", r)
		}
	}
}
