package jq

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

func TestFormatNumber(t *testing.T) {
	for f, want := range map[float64]string{
		1: "1", 1.5: "1.5", 1e-5: "1e-05", 1e17: "1e+17", 1e16: "1e+16", 1e15: "1000000000000000",
		123456789012345678: "123456789012345680", 0.0001: "0.0001", 1.5e300: "1.5e+300", 0.30000000000000004: "0.30000000000000004",
		-2.5: "-2.5", 1e100: "1e+100", 123456789012345678901234567890: "123456789012345680000000000000",
	} {
		if got := formatNumber(f); got != want {
			t.Errorf("formatNumber(%v) = %q, want %q", f, got, want)
		}
	}
}

func TestRunTable(t *testing.T) {
	sb := commandtest.New(t)
	sb.WriteFiles(t, map[string]string{"d.json": `{"z":1,"a":[1,"é"]}`})
	for _, c := range []struct {
		args   []string
		stdin  string
		out    string
		code   int
		errHas string
	}{
		{[]string{"jq", "-c", "."}, `{"b":1,"a":2}`, "{\"a\":2,\"b\":1}\n", 0, ""},
		{[]string{"jq", "-rc", ".a[]", "d.json"}, "", "1\né\n", 0, ""},
		{[]string{"jq", "-a", ".a[1]", "d.json"}, "", "\"\\u00e9\"\n", 0, ""},
		{[]string{"jq", "--tab", ".a", "d.json"}, "", "[\n\t1,\n\t\"é\"\n]\n", 0, ""},
		{[]string{"jq", "."}, "{", "", 2, "parse error"},
		{[]string{"jq", ".a."}, "1", "", 3, "compile error"},
		{[]string{"jq", ".a"}, "1", "", 5, "jq: error"},
		{[]string{"jq", ".", "/etc/passwd"}, "", "", 2, "Could not open /etc/passwd"},
		{[]string{"jq", "--stream", "."}, "1", "", 2, "not supported"},
		{[]string{"jq", "-n", "env.HOME"}, "", "null\n", 0, ""},
	} {
		var o, e bytes.Buffer
		env := sb.Env("/workspace", c.args, strings.NewReader(c.stdin), &o, &e)
		code := Run(context.Background(), env)
		if o.String() != c.out || code != c.code || !strings.Contains(e.String(), c.errHas) {
			t.Errorf("%v: got %q, %d, %q; want %q, %d, stderr containing %q", c.args, o.String(), code, e.String(), c.out, c.code, c.errHas)
		}
	}
}

func TestRunStopsOnCancel(t *testing.T) {
	sb := commandtest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var o, e bytes.Buffer
	env := sb.Env("/workspace", []string{"jq", "-n", "[range(1e9)] | length"}, strings.NewReader(""), &o, &e)
	if code := Run(ctx, env); code == 0 {
		t.Errorf("cancelled jq exited 0 with %q", o.String())
	}
}
