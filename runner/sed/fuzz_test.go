package sed

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// FuzzScript runs arbitrary scripts over arbitrary input: sed must never
// panic and must stop when its context ends.
func FuzzScript(f *testing.F) {
	for _, c := range handCases {
		if len(c.args) > 0 && len(c.files) == 0 {
			f.Add(c.args[len(c.args)-1], c.stdin, strings.Contains(strings.Join(c.args, " "), "-E"))
		}
	}
	sb := commandtest.New(f)
	f.Fuzz(func(t *testing.T, script, input string, ere bool) {
		args := []string{"sed"}
		if ere {
			args = append(args, "-E")
		}
		args = append(args, "-e", script)
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		Run(ctx, sb.Env("/workspace", args, strings.NewReader(input), io.Discard, io.Discard))
	})
}
