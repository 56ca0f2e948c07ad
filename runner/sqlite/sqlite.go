// Package sqlite is the runner's `sqlite3` command on modernc.org/sqlite
// (pure Go).
//
// The database file stays a workspace file that obeys the workspace's
// quotas: the command reads it through the confined FS, deserializes it into
// a private in-memory SQLite database (no host path is ever opened), runs
// the SQL and dot-commands, and, when the database changed, serializes it
// and writes it back through the FS (temporary file + rename). ATTACH,
// VACUUM INTO, load_extension and the shell escapes (.shell, .system,
// .load) are refused, and every statement runs under a time limit.
package sqlite

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"
	"time"

	msqlite "modernc.org/sqlite"

	"github.com/wsfs/wsfs/runner/command"
)

// Commands lists the command this package provides.
func Commands() []command.Spec {
	return []command.Spec{{
		Name:    "sqlite3",
		Summary: "SQLite shell on a workspace database file (modernc.org/sqlite)",
		Flags: []string{"-json", "-csv", "-header", "-noheader", "-line", "-column", "-list", "-markdown", "-table", "-box", "-separator SEP",
			"-nullvalue TEXT", "-cmd COMMAND", "-bail", "-readonly", "-timeout SECONDS",
			".tables", ".schema", ".dump", ".mode", ".headers", ".import FILE TABLE", ".read FILE", ".separator", ".nullvalue", ".quit"},
		Func: Run,
	}}
}

// DefaultTimeout bounds each statement unless -timeout says otherwise.
const DefaultTimeout = 10 * time.Second

// maxDB bounds the database file read into memory.
// It is held up to four times during a call (file, live copy, before and
// after images), so it stays well below the runner's memory limit.
const maxDB = 256 << 20

type shell struct {
	env       *command.Env
	conn      *sql.Conn
	out       *bufio.Writer
	mode      string
	header    bool
	sep       string
	rowSep    string
	null      string
	bail      bool
	timeout   time.Duration
	quit      bool
	readDepth int
}

// Run is the sqlite3 command.
func Run(ctx context.Context, env *command.Env) int {
	sh := &shell{env: env, mode: "list", sep: "|", rowSep: "\n", timeout: DefaultTimeout}
	args := env.Args[1:]
	var cmds []string
	readonly := false
	var dbName string
	var sqlArgs []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			if dbName == "" {
				dbName = a
			} else {
				sqlArgs = append(sqlArgs, a)
			}
			continue
		}
		needs := func() (string, bool) {
			if i+1 >= len(args) {
				env.Errorf("Error: missing argument to %s", a)
				return "", false
			}
			i++
			return args[i], true
		}
		switch strings.TrimPrefix(a, "-") {
		case "-json", "json":
			sh.mode = "json"
		case "-csv", "csv":
			sh.mode, sh.sep = "csv", ","
		case "-line", "line":
			sh.mode = "line"
		case "-column", "column":
			sh.mode = "column"
		case "-list", "list":
			sh.mode = "list"
		case "-markdown", "markdown", "-table", "table", "-box", "box":
			sh.mode = strings.TrimLeft(a, "-")
		case "-header", "header", "-headers", "headers":
			sh.header = true
		case "-noheader", "noheader", "-noheaders", "noheaders":
			sh.header = false
		case "-bail", "bail":
			sh.bail = true
		case "-readonly", "readonly":
			readonly = true
		case "-separator", "separator":
			v, ok := needs()
			if !ok {
				return 1
			}
			sh.sep = unescape(v)
		case "-nullvalue", "nullvalue":
			v, ok := needs()
			if !ok {
				return 1
			}
			sh.null = unescape(v)
		case "-cmd", "cmd":
			v, ok := needs()
			if !ok {
				return 1
			}
			cmds = append(cmds, v)
		case "-timeout", "timeout":
			v, ok := needs()
			if !ok {
				return 1
			}
			d, err := time.ParseDuration(v + "s")
			if err != nil || d <= 0 {
				env.Errorf("Error: -timeout wants a positive number of seconds, got %q", v)
				return 1
			}
			sh.timeout = d
		case "-version", "version":
			fmt.Fprintln(env.Stdout, "3 (modernc.org/sqlite)")
			return 0
		default:
			env.Errorf("Error: unknown option: %s (supported: %s)", a, strings.Join(Commands()[0].Flags, " "))
			return 1
		}
	}

	image, err := loadDB(env, dbName)
	if err != nil {
		env.Errorf("Error: %v", err)
		return 1
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		env.Errorf("Error: %v", err)
		return 1
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		env.Errorf("Error: %v", err)
		return 1
	}
	defer conn.Close()
	sh.conn = conn
	if err := confine(conn, image); err != nil {
		env.Errorf("Error: %s: %v", dbName, err)
		return 1
	}
	before, _ := serialize(conn)

	sh.out = bufio.NewWriterSize(env.Stdout, 64<<10)
	status := 0
	for _, c := range cmds {
		if st := sh.runText(ctx, c+"\n"); st != 0 {
			status = st
			if sh.bail {
				break
			}
		}
	}
	if !sh.quit && (status == 0 || !sh.bail) {
		var st int
		if len(sqlArgs) > 0 {
			for _, s := range sqlArgs {
				if st = sh.runText(ctx, s+"\n"); st != 0 || sh.quit {
					break
				}
			}
		} else {
			st = sh.runReader(ctx, env.Stdin)
		}
		if st != 0 {
			status = st
		}
	}
	sh.out.Flush()

	// Uncommitted work is dropped, as the sqlite3 shell does on exit.
	conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
	if dbName == "" || dbName == ":memory:" || readonly {
		return status
	}
	after, err := serialize(conn)
	if err != nil {
		env.Errorf("Error: cannot save %s: %v", dbName, err)
		return 1
	}
	if len(after) > 0 && !bytes.Equal(before, after) {
		if err := writeBack(env, dbName, after); err != nil {
			env.Errorf("Error: %v", err)
			return 1
		}
	}
	return status
}

// loadDB reads the database file through the FS; a missing file is a new,
// empty database, as with sqlite3.
func loadDB(env *command.Env, name string) ([]byte, error) {
	if name == "" || name == ":memory:" {
		return nil, nil
	}
	if strings.HasPrefix(name, "file:") {
		return nil, fmt.Errorf("URI filenames are not supported: give a workspace path")
	}
	f, err := env.FS.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("unable to open database %q: %s", name, command.Strerror(err))
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("unable to open database %q: Is a directory", name)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxDB+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %q: %s", name, command.Strerror(err))
	}
	if len(data) > maxDB {
		return nil, fmt.Errorf("database %q is larger than %d MiB", name, maxDB>>20)
	}
	if len(data) > 0 && (len(data) < 100 || !bytes.HasPrefix(data, []byte("SQLite format 3\x00"))) {
		return nil, fmt.Errorf("file %q is not a database", name)
	}
	// A WAL-mode header would make the in-memory copy look for a -wal
	// file; the copy is always a rollback-journal database.
	if len(data) >= 20 && data[18] == 2 {
		data[18], data[19] = 1, 1
	}
	return data, nil
}

type serializer interface {
	Serialize() ([]byte, error)
	Deserialize([]byte) error
}

// confine loads the image into the connection and installs the policy that
// keeps SQL away from host files.
func confine(conn *sql.Conn, image []byte) error {
	err := conn.Raw(func(dc any) error {
		// Deserialize attaches the image internally, so it comes before
		// the authorizer that refuses ATTACH.
		if len(image) > 0 {
			s, ok := dc.(serializer)
			if !ok {
				return fmt.Errorf("sqlite: driver cannot deserialize")
			}
			if err := s.Deserialize(image); err != nil {
				return err
			}
		}
		reg, ok := dc.(msqlite.AuthorizerRegisterer)
		if !ok {
			return fmt.Errorf("sqlite: driver offers no authorizer")
		}
		return reg.RegisterAuthorizer(authorize)
	})
	if err != nil {
		return err
	}
	// No attached databases: this also stops VACUUM INTO, which attaches
	// its target.
	if _, err := msqlite.Limit(conn, 7 /* SQLITE_LIMIT_ATTACHED */, 0); err != nil {
		return err
	}
	_, err = conn.ExecContext(context.Background(), "PRAGMA temp_store = MEMORY")
	return err
}

func authorize(action msqlite.AuthorizerActionCode, arg1, arg2, _, _ string) msqlite.AuthorizerReturnCode {
	switch action {
	case msqlite.AuthAttach, msqlite.AuthDetach:
		return msqlite.AuthorizerDeny
	case msqlite.AuthFunction:
		if strings.EqualFold(arg2, "load_extension") {
			return msqlite.AuthorizerDeny
		}
	case msqlite.AuthPragma:
		switch strings.ToLower(arg1) {
		case "temp_store_directory", "data_store_directory":
			return msqlite.AuthorizerDeny
		}
	}
	return msqlite.AuthorizerOK
}

func serialize(conn *sql.Conn) ([]byte, error) {
	var out []byte
	err := conn.Raw(func(dc any) error {
		s, ok := dc.(serializer)
		if !ok {
			return fmt.Errorf("sqlite: driver cannot serialize")
		}
		var err error
		out, err = s.Serialize()
		return err
	})
	return out, err
}

// writeBack replaces name with data through the FS: temporary file in the
// same folder, then rename, so the quota applies and a failure keeps the
// old file.
func writeBack(env *command.Env, name string, data []byte) error {
	perm := fs.FileMode(0o644)
	if fi, err := env.FS.Stat(name); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s: not a regular file", name)
		}
		perm = fi.Mode().Perm()
	}
	var rnd [6]byte
	rand.Read(rnd[:])
	tmp := path.Join(path.Dir(env.FS.Abs(name)), ".sqlite3-"+hex.EncodeToString(rnd[:]))
	f, err := env.FS.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("cannot save %s: %s", name, command.Strerror(err))
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = env.FS.Rename(tmp, name)
	}
	if werr != nil {
		env.FS.Remove(tmp)
		return fmt.Errorf("cannot save %s: %s", name, command.Strerror(werr))
	}
	return nil
}

func unescape(s string) string {
	r := strings.NewReplacer(`\t`, "\t", `\n`, "\n", `\r`, "\r", `\\`, `\`)
	return r.Replace(s)
}

// runReader runs SQL and dot-commands line by line, as the shell reads a
// script.
func (sh *shell) runReader(ctx context.Context, r io.Reader) int {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var buf strings.Builder
	status := 0
	for sc.Scan() {
		line := sc.Text()
		if buf.Len() == 0 || isBlank(buf.String()) {
			if t := strings.TrimSpace(line); strings.HasPrefix(t, ".") {
				buf.Reset()
				if st := sh.dot(ctx, t); st != 0 {
					status = st
					if sh.bail {
						return status
					}
				}
				if sh.quit {
					return status
				}
				continue
			}
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
		rest, st := sh.execComplete(ctx, buf.String())
		buf.Reset()
		buf.WriteString(rest)
		if st != 0 {
			status = st
			if sh.bail {
				return status
			}
		}
	}
	if err := sc.Err(); err != nil {
		sh.errorf("Error: reading input: %v", err)
		return 1
	}
	if !isBlank(buf.String()) {
		// sqlite3 runs a final statement that lacks its semicolon.
		if st := sh.exec(ctx, buf.String()); st != 0 {
			status = st
		}
	}
	return status
}

// runText runs a command-line argument: one dot-command, or SQL.
func (sh *shell) runText(ctx context.Context, text string) int {
	if t := strings.TrimSpace(text); strings.HasPrefix(t, ".") {
		return sh.dot(ctx, t)
	}
	return sh.runReader(ctx, strings.NewReader(text))
}

// execComplete runs every complete statement of s and returns the rest.
func (sh *shell) execComplete(ctx context.Context, s string) (string, int) {
	status := 0
	for {
		stmt, rest, ok := nextStatement(s)
		if !ok {
			return s, status
		}
		s = rest
		if isBlank(stmt) {
			continue
		}
		if st := sh.exec(ctx, stmt); st != 0 {
			status = st
			if sh.bail {
				return "", status
			}
		}
	}
}

func (sh *shell) errorf(format string, a ...any) {
	sh.out.Flush()
	fmt.Fprintf(sh.env.Stderr, format+"\n", a...)
}

func (sh *shell) exec(ctx context.Context, stmt string) int {
	qctx, cancel := context.WithTimeout(ctx, sh.timeout)
	defer cancel()
	rows, err := sh.conn.QueryContext(qctx, stmt)
	if err != nil {
		sh.errorf("%s", sqlError(qctx, err, sh.timeout))
		return 1
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		sh.errorf("%s", sqlError(qctx, err, sh.timeout))
		return 1
	}
	p := sh.newPrinter(cols)
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			sh.errorf("%s", sqlError(qctx, err, sh.timeout))
			return 1
		}
		p.row(vals)
	}
	if err := rows.Err(); err != nil {
		p.finish()
		sh.errorf("%s", sqlError(qctx, err, sh.timeout))
		return 1
	}
	p.finish()
	return 0
}

func sqlError(ctx context.Context, err error, limit time.Duration) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("Error: query stopped after the %v time limit (sqlite3 -timeout SECONDS raises it)", limit)
	}
	if ctx.Err() != nil {
		return "Error: interrupted"
	}
	msg := err.Error()
	// modernc's errors read "SQL logic error: no such table: x (1)"; the
	// shell prints only SQLite's message.
	if m := rcMessage.FindStringSubmatch(msg); m != nil {
		msg = m[1]
	}
	if strings.Contains(msg, "not authorized") || strings.Contains(msg, "authorization denied") || strings.Contains(msg, "too many attached") {
		return "Error: " + msg + " (ATTACH, VACUUM INTO and load_extension are disabled: the database is confined to its workspace file)"
	}
	return "Error: " + msg
}

var rcMessage = regexp.MustCompile(`^[a-zA-Z ()]+: (.+) \(\d+\)$`)
