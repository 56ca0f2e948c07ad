package sqlite

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

const setup = `CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL);
INSERT INTO t VALUES (1, 'ann', 9.5), (2, 'bob', NULL), (3, 'c,d', 7);
`

func TestShell(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		stdin string
		args  []string
		out   string
		code  int
		err   string
	}{
		{name: "list", args: []string{"select * from t"}, out: "1|ann|9.5\n2|bob|\n3|c,d|7.0\n"},
		{name: "list header", args: []string{"-header", "select id, name from t where id < 3"}, out: "id|name\n1|ann\n2|bob\n"},
		{name: "noheader", args: []string{"-header", "-noheader", "select 1"}, out: "1\n"},
		{name: "separator", args: []string{"-separator", ";", "select id, name from t where id = 1"}, out: "1;ann\n"},
		{name: "separator tab", args: []string{"-separator", `\t`, "select id, name from t where id = 1"}, out: "1\tann\n"},
		{name: "nullvalue", args: []string{"-nullvalue", "NULL", "select score from t where id = 2"}, out: "NULL\n"},
		{name: "csv", args: []string{"-csv", "-header", "select id, name from t"}, out: "id,name\n1,ann\n2,bob\n3,\"c,d\"\n"},
		{name: "json", args: []string{"-json", "select * from t"},
			out: `[{"id":1,"name":"ann","score":9.5},` + "\n" + `{"id":2,"name":"bob","score":null},` + "\n" + `{"id":3,"name":"c,d","score":7.0}]` + "\n"},
		{name: "json empty", args: []string{"-json", "select * from t where 0"}, out: ""},
		{name: "line", args: []string{"-line", "select id, name from t where id < 3"}, out: "  id = 1\nname = ann\n\n  id = 2\nname = bob\n"},
		{name: "column", args: []string{"-column", "-header", "select id, name from t"}, out: "id  name\n--  ----\n1   ann\n2   bob\n3   c,d\n"},
		{name: "markdown", args: []string{"-markdown", "select id, name from t where id < 3"}, out: "| id | name |\n|----|------|\n| 1  | ann  |\n| 2  | bob  |\n"},
		{name: "table", stdin: ".mode table\nselect id, name from t where id = 1;\n", out: "+----+------+\n| id | name |\n+----+------+\n| 1  | ann  |\n+----+------+\n"},
		{name: "box", args: []string{"-box", "select 1 as a"}, out: "┌───┐\n│ a │\n├───┤\n│ 1 │\n└───┘\n"},
		{name: "stdin script", stdin: "select count(*) from t;\nselect max(id)\n  from t;\n", out: "3\n3\n"},
		{name: "no trailing semicolon", stdin: "select 42", out: "42\n"},
		{name: "two statements one line", args: []string{"select 1; select 'a;b';"}, out: "1\na;b\n"},
		{name: "comment", stdin: "-- hi;\nselect 1; /* x; */\n", out: "1\n"},
		{name: "dot mode", stdin: ".mode csv\n.headers on\nselect id, name from t where id=3;\n", out: "id,name\r\n3,\"c,d\"\r\n"},
		{name: "dot mode json", stdin: ".mode json\nselect 1 as a;\n", out: "[{\"a\":1}]\n"},
		{name: "dot column", stdin: ".mode column\nselect name from t where id = 1;\n", out: "name\n----\nann\n"},
		{name: "tables", stdin: "create view v as select 1;\n.tables\n", out: "t  v\n"},
		{name: "schema", stdin: ".schema t\n", out: "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL);\n"},
		{name: "dump", stdin: "create index i on t(name);\n.dump\n", out: "PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\n" +
			"CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL);\n" +
			"INSERT INTO t VALUES(1,'ann',9.5);\nINSERT INTO t VALUES(2,'bob',NULL);\nINSERT INTO t VALUES(3,'c,d',7.0);\n" +
			"CREATE INDEX i on t(name);\nCOMMIT;\n"},
		{name: "quit", stdin: "select 1;\n.quit\nselect 2;\n", out: "1\n"},
		{name: "sql error", args: []string{"select * from nope"}, code: 1, err: "Error: no such table: nope"},
		{name: "error continues", stdin: "select * from nope;\nselect 5;\n", out: "5\n", code: 1, err: "no such table"},
		{name: "bail", stdin: "select * from nope;\nselect 5;\n", args: []string{"-bail"}, code: 1, err: "no such table"},
		{name: "attach refused", args: []string{"attach '/tmp/x.db' as x"}, code: 1, err: "not authorized"},
		{name: "vacuum into refused", args: []string{"vacuum into '/tmp/y.db'"}, code: 1, err: "confined"},
		{name: "load_extension refused", args: []string{"select load_extension('x')"}, code: 1, err: "not authorized to use function: load_extension"},
		{name: "shell refused", stdin: ".shell ls\n", code: 1, err: "not available"},
		{name: "system refused", stdin: ".system ls\n", code: 1, err: "not available"},
		{name: "unknown dot", stdin: ".frob\n", code: 1, err: "unknown command"},
		{name: "unknown option", args: []string{"-frob"}, code: 1, err: "unknown option"},
		{name: "timeout", args: []string{"-timeout", "0.2", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c"},
			code: 1, err: "time limit"},
		{name: "cmd", args: []string{"-cmd", ".mode csv", "select 'a b', 2"}, out: "a b,2\r\n"},
		{name: "read", stdin: ".read q.sql\n", out: "ann\n"},
		{name: "read missing", stdin: ".read nope.sql\n", code: 1, err: "cannot open"},
		{name: "trigger", stdin: "create temp table log(x);\ncreate temp trigger tr after insert on log begin\n insert into log values (new.x*10); select 1;\nend;\ninsert into log values (1);\nselect x from log order by x;\n", out: "1\n10\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sb := commandtest.New(t)
			sb.WriteFiles(t, map[string]string{"q.sql": "select name from t where id = 1;\n"})
			if r := sb.Run(ctx, Run, setup, "sqlite3", "db.sqlite"); r.Code != 0 {
				t.Fatalf("setup: %+v", r)
			}
			r := sb.Run(ctx, Run, tc.stdin, append(append([]string{"sqlite3"}, tc.args[:flagCount(tc.args)]...),
				append([]string{"db.sqlite"}, tc.args[flagCount(tc.args):]...)...)...)
			if r.Code != tc.code || r.Stdout != tc.out || !strings.Contains(r.Stderr, tc.err) {
				t.Errorf("sqlite3 %q:\n got code %d stdout %q stderr %q\nwant code %d stdout %q stderr ~%q",
					tc.args, r.Code, r.Stdout, r.Stderr, tc.code, tc.out, tc.err)
			}
		})
	}
}

// flagCount is how many leading args are options (and their values).
func flagCount(args []string) int {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		switch args[i] {
		case "-separator", "-nullvalue", "-cmd", "-timeout":
			i++
		}
		i++
	}
	return i
}

func TestPersistence(t *testing.T) {
	ctx := context.Background()
	sb := commandtest.New(t)
	dbPath := filepath.Join(sb.Workspace, "data", "app.db")
	if err := os.Mkdir(filepath.Dir(dbPath), 0o755); err != nil {
		t.Fatal(err)
	}
	// A read-only session leaves no file behind.
	if r := sb.Run(ctx, Run, "", "sqlite3", "data/app.db", "select 1"); r.Code != 0 || r.Stdout != "1\n" {
		t.Fatalf("select: %+v", r)
	}
	if _, err := os.Stat(dbPath); !os.IsNotExist(err) {
		t.Fatalf("a query without writes created the database: %v", err)
	}
	if r := sb.Run(ctx, Run, setup, "sqlite3", "data/app.db"); r.Code != 0 {
		t.Fatalf("create: %+v", r)
	}
	data, err := os.ReadFile(dbPath)
	if err != nil || !bytes.HasPrefix(data, []byte("SQLite format 3\x00")) {
		t.Fatalf("database file: %v %q", err, data[:min(len(data), 16)])
	}
	st1, _ := os.Stat(dbPath)
	// Reads do not rewrite the file.
	if r := sb.Run(ctx, Run, "", "sqlite3", "data/app.db", "select count(*) from t"); r.Stdout != "3\n" {
		t.Fatalf("count: %+v", r)
	}
	st2, _ := os.Stat(dbPath)
	if !st2.ModTime().Equal(st1.ModTime()) || os.SameFile(st1, st2) == false {
		t.Errorf("a read-only query rewrote the database")
	}
	// An uncommitted transaction is dropped.
	sb.Run(ctx, Run, "BEGIN; DELETE FROM t;\n", "sqlite3", "data/app.db")
	if r := sb.Run(ctx, Run, "", "sqlite3", "data/app.db", "select count(*) from t"); r.Stdout != "3\n" {
		t.Errorf("uncommitted delete persisted: %+v", r)
	}
	// -readonly never writes.
	sb.Run(ctx, Run, "", "sqlite3", "-readonly", "data/app.db", "delete from t")
	if r := sb.Run(ctx, Run, "", "sqlite3", "data/app.db", "select count(*) from t"); r.Stdout != "3\n" {
		t.Errorf("-readonly delete persisted: %+v", r)
	}
	// .import a CSV with a header into a new table.
	sb.WriteFiles(t, map[string]string{"people.csv": "name,age\n\"Smith, J\",40\nLee,31\n"})
	r := sb.Run(ctx, Run, ".import --csv people.csv people\nselect name || '/' || age from people order by age;\n", "sqlite3", "data/app.db")
	if r.Code != 0 || r.Stdout != "Lee/31\nSmith, J/40\n" {
		t.Errorf(".import: %+v", r)
	}
	if r := sb.Run(ctx, Run, "", "sqlite3", "data/app.db", ".tables"); r.Stdout != "people  t     \n" {
		t.Errorf(".tables after import: %q", r.Stdout)
	}
	entries, _ := os.ReadDir(filepath.Dir(dbPath))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	// Not a database.
	sb.WriteFiles(t, map[string]string{"junk.db": strings.Repeat("x", 200)})
	if r := sb.Run(ctx, Run, "", "sqlite3", "junk.db", "select 1"); r.Code != 1 || !strings.Contains(r.Stderr, "not a database") {
		t.Errorf("junk: %+v", r)
	}
	// Outside the workspace view there is nothing to open or create.
	if r := sb.Run(ctx, Run, "", "sqlite3", "/etc/x.db", "create table a(b)"); r.Code == 0 {
		t.Errorf("created a database outside the view: %+v", r)
	}
}

// TestNoHostFiles checks that SQL cannot create files on the host: the
// paths below are real host folders outside the agent's view.
func TestNoHostFiles(t *testing.T) {
	ctx := context.Background()
	sb := commandtest.New(t)
	host := t.TempDir()
	for _, q := range []string{
		"VACUUM INTO '" + filepath.Join(host, "v.db") + "'",
		"ATTACH '" + filepath.Join(host, "a.db") + "' AS a; CREATE TABLE a.x(y);",
		"ATTACH 'file:" + filepath.Join(host, "u.db") + "?mode=rwc' AS u",
	} {
		if r := sb.Run(ctx, Run, "", "sqlite3", "d.db", q); r.Code == 0 {
			t.Errorf("%s succeeded: %+v", q, r)
		}
	}
	if entries, _ := os.ReadDir(host); len(entries) != 0 {
		t.Errorf("SQL wrote host files: %v", entries)
	}
}

// TestDumpRoundTrip loads a .dump into a fresh database and dumps it again.
func TestDumpRoundTrip(t *testing.T) {
	ctx := context.Background()
	sb := commandtest.New(t)
	if r := sb.Run(ctx, Run, setup+"INSERT INTO t VALUES (4, 'it''s', -1e300);\nCREATE VIEW v AS SELECT name FROM t;\n", "sqlite3", "a.db"); r.Code != 0 {
		t.Fatalf("setup: %+v", r)
	}
	first := sb.Run(ctx, Run, "", "sqlite3", "a.db", ".dump")
	if first.Code != 0 {
		t.Fatalf(".dump: %+v", first)
	}
	if r := sb.Run(ctx, Run, first.Stdout, "sqlite3", "b.db"); r.Code != 0 {
		t.Fatalf("load dump: %+v", r)
	}
	second := sb.Run(ctx, Run, "", "sqlite3", "b.db", ".dump")
	if second.Stdout != first.Stdout {
		t.Errorf("dump changed in a round trip:\n%s\nthen:\n%s", first.Stdout, second.Stdout)
	}
}
