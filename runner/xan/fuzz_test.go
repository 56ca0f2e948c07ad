package xan

import (
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

var fuzzCommands = [][]string{
	{"select", "*"}, {"select", "!0"}, {"select", "-1,0:"}, {"count"}, {"headers"},
	{"search", "-i", "a"}, {"search", "-r", "^[0-9]+$"}, {"filter", `len(col(0)) > 1 || col(-1) eq "x"`},
	{"sort", "-N"}, {"sort", "-R", "-u"}, {"frequency", "-l", "2"}, {"stats", "-c"},
	{"slice", "-s", "1", "-l", "2"}, {"tail", "-l", "2"}, {"to", "json"}, {"to", "md"},
	{"from", "-f", "json"}, {"from", "-f", "jsonl"}, {"view", "-e"}, {"flatten"},
	{"dedup"}, {"behead"}, {"rename", "--prefix", "x"}, {"reverse"}, {"transpose"},
	{"cat", "columns", "-", "-"}, {"join", "0", "-", "0", "a.csv"}, {"select", "-n", "0"},
	{"map", `col(0) ++ "x" as y, len(col(-1))`}, {"agg", "count(), values(col(0)), sum(len(col(-1)))"},
	{"groupby", "0", "count() as n, mode(col(-1)), median(len(col(0)))"}, {"fixlengths"}, {"fixlengths", "-l", "2"},
	{"transform", "0", "upper"}, {"transform", "-1", "_ ++ len(_)"}, {"enum", "-S", "3"},
}

// FuzzXan runs every subcommand on arbitrary input: none may panic or
// answer with a status other than 0, 1 or 2, and select '*' must write
// back exactly the records it read.
func FuzzXan(f *testing.F) {
	for _, seed := range []string{
		"a,b\n1,2\n", "\xef\xbb\xbfa,b\r\n\"x,\"\"y\"\"\",\"l1\nl2\"\r\n", "a,b\n1\n", "a\n\"\"\n",
		"\"unterminated\n", "a,b\n\"x\"y,z\n", `[{"a":{"b":[1,{"c":null}]}},{"a":1}]`, "{\"k\":1}\n[2]\n",
		"", "\n\n", "a;b\n", "日本,é\n\x00,\xff\n", "a,b\n\r\n1,\r2\n",
	} {
		for i := range fuzzCommands {
			f.Add([]byte(seed), uint8(i))
		}
	}
	sb := commandtest.New(f)
	sb.WriteFiles(f, map[string]string{"a.csv": "k,v\n1,x\n,y\n"})
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		args := append([]string{"xan"}, fuzzCommands[int(which)%len(fuzzCommands)]...)
		var out, errb bytes.Buffer
		code := Run(ctx, sb.Env("/workspace", args, bytes.NewReader(data), &out, &errb))
		if code < 0 || code > 2 {
			t.Fatalf("xan %q: status %d, stderr %q", args[1:], code, errb.String())
		}
		if code != 0 && errb.Len() == 0 {
			t.Fatalf("xan %q: status %d without a message", args[1:], code)
		}
		if args[1] == "select" && args[2] == "*" && code == 0 {
			want := readAllLenient(t, bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
			got := readAllLenient(t, out.Bytes())
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("select * changed the records:\n in  %q\n out %q\n read %q\n want %q", data, out.String(), got, want)
			}
		}
	})
}

func readAllLenient(t *testing.T, b []byte) [][]string {
	r := csv.NewReader(bytes.NewReader(b))
	r.LazyQuotes = true
	r.FieldsPerRecord = -1
	var rows [][]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return rows
		}
		if err != nil {
			t.Fatalf("reading back %q: %v", b, err)
		}
		rows = append(rows, rec)
	}
}

// FuzzFilter compiles and runs arbitrary expressions: errors are fine,
// panics are not.
func FuzzFilter(f *testing.F) {
	for _, seed := range []string{
		"a > 1", `lower(b) eq "x"`, "a ** -3 // 0", `b.split(",")[1:-1]`, `[1, "a", [2]][2][0]`,
		`fmt("{} {}", a)`, "not a in b", "((((a", `/[/`, `match(b, "(x)", 1)`, "-a--a", "9223372036854775807 + 1",
		`col("b", -1) ++ col(5)`, `if(a, b)`, `min([])`, `count(b, //)`, `"\x4` + "1\"",
	} {
		f.Add(seed)
	}
	ctx := context.Background()
	sb := commandtest.New(f)
	f.Fuzz(func(t *testing.T, expr string) {
		r := sb.Run(ctx, Run, "a,b\n1,x\n-2,\"y,z\"\n,\n", "xan", "filter", "--", expr)
		if r.Code < 0 || r.Code > 2 || (r.Code != 0 && r.Stderr == "") {
			t.Fatalf("filter %q: %+v", expr, r)
		}
		if r.Code == 0 && !strings.HasPrefix(r.Stdout, "a,b\n") {
			t.Fatalf("filter %q: output %q", expr, r.Stdout)
		}
	})
}
