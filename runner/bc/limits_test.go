package bc

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// TestLimits: what would take the worker's memory or time ends with a
// run-time error naming the runner's limit, and bc goes on.
func TestLimits(t *testing.T) {
	sb := commandtest.New(t)
	// The element limit at its default takes a million stores to reach.
	defer func(n int) { maxElements = n }(maxElements)
	maxElements = 1000
	for _, c := range []struct{ prog, flags, want string }{
		{"scale=2000000; 1/3\n5\n", "", "Runtime error (func=(main), adr=17): a result of about 2000002 digits is over the runner's limit of 1048576 digits\n"},
		{"10^2000000\n5\n", "", "Runtime error (func=(main), adr=14): a result of about 2000000 digits is over the runner's limit of 1048576 digits\n"},
		{"x=2^2000000; x*x\n5\n", "", "digits is over the runner's limit of 1048576 digits"},
		{"scale=3000000; sqrt(2)\n5\n", "", "over the runner's limit"},
		{"for(i=0;;i++) a[i]=i\n5\n", "", "Runtime error (func=(main), adr=25): Array a: over the runner's limit of 1000 elements in all arrays\n"},
		{"define f(n){ return f(n+1) }\nf(1)\n5\n", "", "Runtime error (func=f, adr=8): function calls nested over the runner's limit of 5000\n"},
		{"e(10000000)\n5\n", "-l", "over the runner's limit"},
		{"scale=2000000; e(1)\n5\n", "-l", "over the runner's limit"},
	} {
		args := []string{"bc"}
		if c.flags != "" {
			args = append(args, c.flags)
		}
		r := sb.Run(t.Context(), Bc, c.prog, args...)
		if !strings.Contains(r.Stderr, c.want) || r.Code != 0 || !strings.HasSuffix(r.Stdout, "5\n") {
			t.Errorf("%q: status %d, out %q, err %q; want err containing %q and bc going on", c.prog, r.Code, r.Stdout, r.Stderr, c.want)
		}
	}
}

// TestStops: an endless loop ends when the command's context does.
func TestStops(t *testing.T) {
	sb := commandtest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &cancelOnWrite{cancel: cancel}
	var errb bytes.Buffer
	code := Bc(ctx, sb.Env("/workspace", []string{"bc"}, strings.NewReader("1\nwhile(1){}\n2\n"), out, &errb))
	if code == 0 || out.String() != "1\n" {
		t.Errorf("status %d, out %q, err %q", code, out.String(), errb.String())
	}
}

type cancelOnWrite struct {
	bytes.Buffer
	cancel func()
}

func (c *cancelOnWrite) Write(p []byte) (int, error) {
	c.cancel()
	return c.Buffer.Write(p)
}
