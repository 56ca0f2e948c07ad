package sqlite

import (
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

type printer struct {
	sh    *shell
	cols  []string
	rows  int
	table [][]string // column mode buffers rows to size the columns
}

func (sh *shell) newPrinter(cols []string) *printer {
	return &printer{sh: sh, cols: cols}
}

// text renders a value as the sqlite3 shell prints it.
func (p *printer) text(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return p.sh.null, false
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		s := strconv.FormatFloat(x, 'g', 15, 64)
		if !strings.ContainsAny(s, ".eIN") {
			s += ".0"
		} else if i := strings.IndexByte(s, 'e'); i >= 0 && !strings.Contains(s[:i], ".") {
			s = s[:i] + ".0" + s[i:]
		}
		return s, true
	case []byte:
		return string(x), false
	case string:
		return x, false
	case bool:
		if x {
			return "1", true
		}
		return "0", true
	default:
		return fmt.Sprint(x), false
	}
}

func (p *printer) row(vals []any) {
	out := p.sh.out
	first := p.rows == 0
	p.rows++
	switch p.sh.mode {
	case "json":
		if first {
			out.WriteString("[")
		} else {
			out.WriteString(",\n")
		}
		out.WriteString("{")
		for i, c := range p.cols {
			if i > 0 {
				out.WriteString(",")
			}
			k, _ := json.Marshal(c)
			out.Write(k)
			out.WriteString(":")
			switch x := vals[i].(type) {
			case nil:
				out.WriteString("null")
			case int64, float64:
				s, _ := p.text(x)
				out.WriteString(s)
			default:
				s, _ := p.text(x)
				b, _ := json.Marshal(s)
				out.Write(b)
			}
		}
		out.WriteString("}")
	case "line":
		w := 0
		for _, c := range p.cols {
			w = max(w, utf8.RuneCountInString(c))
		}
		if !first {
			out.WriteString("\n")
		}
		for i, c := range p.cols {
			s, _ := p.text(vals[i])
			fmt.Fprintf(out, "%*s = %s\n", w, c, s)
		}
	case "column", "markdown", "table", "box":
		if first && (p.sh.header || p.sh.mode != "column") {
			p.table = append(p.table, append([]string(nil), p.cols...))
		}
		cells := make([]string, len(vals))
		for i, v := range vals {
			cells[i], _ = p.text(v)
		}
		p.table = append(p.table, cells)
	case "csv":
		if first && p.sh.header {
			p.csvRow(p.cols)
		}
		cells := make([]string, len(vals))
		for i, v := range vals {
			cells[i], _ = p.text(v)
		}
		p.csvRow(cells)
	default: // list
		if first && p.sh.header {
			out.WriteString(strings.Join(p.cols, p.sh.sep) + p.sh.rowSep)
		}
		for i, v := range vals {
			if i > 0 {
				out.WriteString(p.sh.sep)
			}
			s, _ := p.text(v)
			out.WriteString(s)
		}
		out.WriteString(p.sh.rowSep)
	}
}

func (p *printer) csvRow(cells []string) {
	out := p.sh.out
	for i, c := range cells {
		if i > 0 {
			out.WriteString(p.sh.sep)
		}
		if strings.ContainsAny(c, p.sh.sep+"\"\r\n") {
			out.WriteString(`"` + strings.ReplaceAll(c, `"`, `""`) + `"`)
		} else {
			out.WriteString(c)
		}
	}
	out.WriteString(p.sh.rowSep)
}

func (p *printer) finish() {
	out := p.sh.out
	switch p.sh.mode {
	case "json":
		if p.rows > 0 {
			out.WriteString("]\n")
		}
	case "column":
		if len(p.table) == 0 {
			return
		}
		widths := p.widths()
		for i, r := range p.table {
			out.WriteString(strings.TrimRight(p.line(r, widths, "", "  ", ""), " ") + "\n")
			if i == 0 && p.sh.header {
				out.WriteString(strings.TrimRight(p.rule(widths, "", "-", "  ", ""), " ") + "\n")
			}
		}
	case "markdown", "table", "box":
		if len(p.table) == 0 {
			return
		}
		w := p.widths()
		switch p.sh.mode {
		case "markdown":
			out.WriteString(p.line(p.table[0], w, "| ", " | ", " |") + "\n")
			out.WriteString(p.rule(w, "|", "-", "|", "|") + "\n")
			for _, r := range p.table[1:] {
				out.WriteString(p.line(r, w, "| ", " | ", " |") + "\n")
			}
		case "table":
			sep := p.rule(w, "+", "-", "+", "+") + "\n"
			out.WriteString(sep + p.line(p.table[0], w, "| ", " | ", " |") + "\n" + sep)
			for _, r := range p.table[1:] {
				out.WriteString(p.line(r, w, "| ", " | ", " |") + "\n")
			}
			out.WriteString(sep)
		case "box":
			out.WriteString(p.rule(w, "┌", "─", "┬", "┐") + "\n")
			out.WriteString(p.line(p.table[0], w, "│ ", " │ ", " │") + "\n")
			out.WriteString(p.rule(w, "├", "─", "┼", "┤") + "\n")
			for _, r := range p.table[1:] {
				out.WriteString(p.line(r, w, "│ ", " │ ", " │") + "\n")
			}
			out.WriteString(p.rule(w, "└", "─", "┴", "┘") + "\n")
		}
	}
}

func (p *printer) widths() []int {
	widths := make([]int, len(p.cols))
	for _, r := range p.table {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	return widths
}

// line pads each cell to its column's width between the given borders.
func (p *printer) line(cells []string, widths []int, left, mid, right string) string {
	var b strings.Builder
	b.WriteString(left)
	for i, c := range cells {
		if i > 0 {
			b.WriteString(mid)
		}
		b.WriteString(c)
		b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)))
	}
	b.WriteString(right)
	return b.String()
}

// rule draws a horizontal line; boxed rules (non-empty left) also cover the
// cell padding.
func (p *printer) rule(widths []int, left, fill, mid, right string) string {
	var b strings.Builder
	b.WriteString(left)
	pad := 0
	if left != "" {
		pad = 2
	}
	for i, w := range widths {
		if i > 0 {
			b.WriteString(mid)
		}
		b.WriteString(strings.Repeat(fill, w+pad))
	}
	b.WriteString(right)
	return b.String()
}

// dot runs one dot-command.
func (sh *shell) dot(ctx context.Context, line string) int {
	fields, err := splitArgs(line[1:])
	if err != nil || len(fields) == 0 {
		sh.errorf("Error: cannot parse %q", line)
		return 1
	}
	name, args := fields[0], fields[1:]
	switch name {
	case "quit", "exit", "q":
		sh.quit = true
		return 0
	case "headers", "header":
		if len(args) != 1 {
			sh.errorf("Usage: .headers on|off")
			return 1
		}
		sh.header = isOn(args[0])
	case "mode":
		if len(args) < 1 {
			fmt.Fprintf(sh.out, "current output mode: %s\n", sh.mode)
			return 0
		}
		switch args[0] {
		case "list":
			sh.mode, sh.sep, sh.rowSep = "list", "|", "\n"
		case "csv":
			sh.mode, sh.sep, sh.rowSep = "csv", ",", "\r\n"
		case "tabs":
			sh.mode, sh.sep, sh.rowSep = "list", "\t", "\n"
		case "json", "line", "markdown", "table", "box":
			sh.mode = args[0]
		case "column", "columns":
			sh.mode = "column"
			sh.header = true
		default:
			sh.errorf("Error: mode should be one of: box column csv json line list markdown table tabs")
			return 1
		}
	case "separator":
		if len(args) < 1 || len(args) > 2 {
			sh.errorf("Usage: .separator COL ?ROW?")
			return 1
		}
		sh.sep = unescape(args[0])
		if len(args) == 2 {
			sh.rowSep = unescape(args[1])
		}
	case "nullvalue":
		if len(args) != 1 {
			sh.errorf("Usage: .nullvalue STRING")
			return 1
		}
		sh.null = unescape(args[0])
	case "tables":
		return sh.tables(ctx, args)
	case "schema":
		return sh.schema(ctx, args)
	case "read":
		if len(args) != 1 {
			sh.errorf("Usage: .read FILE")
			return 1
		}
		if sh.readDepth > 20 {
			sh.errorf("Error: .read nested too deeply")
			return 1
		}
		f, err := sh.env.FS.Open(args[0])
		if err != nil {
			sh.errorf("Error: cannot open \"%s\": %s", args[0], err)
			return 1
		}
		defer f.Close()
		sh.readDepth++
		defer func() { sh.readDepth-- }()
		return sh.runReader(ctx, f)
	case "import":
		return sh.importFile(ctx, args)
	case "dump":
		return sh.dump(ctx, args)
	case "shell", "system", "load", "output", "once", "open", "save", "backup", "restore", "clone", "excel":
		sh.errorf("Error: .%s is not available in wsfs: the shell is confined to its database file (use runner commands for files)", name)
		return 1
	case "help":
		fmt.Fprintln(sh.out, ".dump ?TABLE?  .headers on|off  .import FILE TABLE  .mode MODE  .nullvalue STR  .quit  .read FILE  .schema ?PATTERN?  .separator COL ?ROW?  .tables ?PATTERN?")
	default:
		sh.errorf("Error: unknown command or invalid arguments:  \"%s\". Enter \".help\" for help", name)
		return 1
	}
	return 0
}

func isOn(s string) bool {
	switch strings.ToLower(s) {
	case "on", "yes", "true", "1":
		return true
	}
	return false
}

// splitArgs splits a dot-command line into words, honouring quotes.
func splitArgs(s string) ([]string, error) {
	var out []string
	s = strings.TrimSpace(s)
	for s != "" {
		if s[0] == '"' || s[0] == '\'' {
			j := strings.IndexByte(s[1:], s[0])
			if j < 0 {
				return nil, fmt.Errorf("unterminated quote")
			}
			out = append(out, s[1:j+1])
			s = strings.TrimSpace(s[j+2:])
			continue
		}
		j := strings.IndexAny(s, " \t")
		if j < 0 {
			j = len(s)
		}
		out = append(out, s[:j])
		s = strings.TrimSpace(s[j:])
	}
	return out, nil
}

func (sh *shell) queryStrings(ctx context.Context, q string, args ...any) ([]string, error) {
	qctx, cancel := context.WithTimeout(ctx, sh.timeout)
	defer cancel()
	rows, err := sh.conn.QueryContext(qctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s sql.NullString
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s.String)
	}
	return out, rows.Err()
}

func (sh *shell) tables(ctx context.Context, args []string) int {
	pattern := "%"
	if len(args) > 0 {
		pattern = args[0]
	}
	names, err := sh.queryStrings(ctx, `SELECT name FROM sqlite_schema WHERE type IN ('table','view')
		AND name NOT LIKE 'sqlite_%' AND name LIKE ?1 ORDER BY 1`, pattern)
	if err != nil {
		sh.errorf("Error: %v", err)
		return 1
	}
	if len(names) == 0 {
		return 0
	}
	w := 0
	for _, n := range names {
		w = max(w, len(n))
	}
	perRow := max(1, 80/(w+2))
	nRows := (len(names) + perRow - 1) / perRow
	for i := 0; i < nRows; i++ {
		for j := i; j < len(names); j += nRows {
			if j >= nRows {
				sh.out.WriteString("  ")
			}
			fmt.Fprintf(sh.out, "%-*s", w, names[j])
		}
		sh.out.WriteString("\n")
	}
	return 0
}

func (sh *shell) schema(ctx context.Context, args []string) int {
	pattern := "%"
	if len(args) > 0 {
		pattern = args[0]
	}
	stmts, err := sh.queryStrings(ctx, `SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL
		AND name NOT LIKE 'sqlite_%' AND (name LIKE ?1 OR tbl_name LIKE ?1) ORDER BY rowid`, pattern)
	if err != nil {
		sh.errorf("Error: %v", err)
		return 1
	}
	for _, s := range stmts {
		sh.out.WriteString(s + ";\n")
	}
	return 0
}

// importFile is .import [--csv] [--skip N] FILE TABLE: CSV in csv mode or
// with --csv, otherwise rows split on the column separator. A missing
// table is created from the first row's names.
func (sh *shell) importFile(ctx context.Context, args []string) int {
	csvMode := sh.mode == "csv"
	skip := 0
	var pos []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--csv", "-csv":
			csvMode = true
		case "--skip", "-skip":
			if i+1 < len(args) {
				i++
				n, err := strconv.Atoi(args[i])
				if err != nil || n < 0 {
					sh.errorf("Error: --skip wants a number")
					return 1
				}
				skip = n
			}
		default:
			pos = append(pos, args[i])
		}
	}
	if len(pos) != 2 {
		sh.errorf("Usage: .import [--csv] [--skip N] FILE TABLE")
		return 1
	}
	file, table := pos[0], pos[1]
	f, err := sh.env.FS.Open(file)
	if err != nil {
		sh.errorf("Error: cannot open \"%s\": %s", file, err)
		return 1
	}
	defer f.Close()
	var records [][]string
	if csvMode {
		r := csv.NewReader(f)
		if sh.mode == "csv" && utf8.RuneCountInString(sh.sep) == 1 {
			r.Comma, _ = utf8.DecodeRuneInString(sh.sep)
		}
		r.FieldsPerRecord = -1
		r.LazyQuotes = true
		records, err = r.ReadAll()
	} else {
		var data []byte
		data, err = io.ReadAll(f)
		for _, l := range strings.Split(strings.TrimSuffix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n"), "\n") {
			records = append(records, strings.Split(l, sh.sep))
		}
	}
	if err != nil {
		sh.errorf("Error: %s: %v", file, err)
		return 1
	}
	if skip > len(records) {
		skip = len(records)
	}
	records = records[skip:]
	if len(records) == 0 {
		return 0
	}
	qt := `"` + strings.ReplaceAll(table, `"`, `""`) + `"`
	cols, err := sh.queryStrings(ctx, `SELECT name FROM pragma_table_info(?1)`, table)
	if err != nil {
		sh.errorf("Error: %v", err)
		return 1
	}
	qctx, cancel := context.WithTimeout(ctx, sh.timeout)
	defer cancel()
	if len(cols) == 0 {
		var defs []string
		for _, c := range records[0] {
			defs = append(defs, `"`+strings.ReplaceAll(c, `"`, `""`)+`" TEXT`)
		}
		if _, err := sh.conn.ExecContext(qctx, "CREATE TABLE "+qt+"("+strings.Join(defs, ", ")+")"); err != nil {
			sh.errorf("Error: %v", err)
			return 1
		}
		cols = records[0]
		records = records[1:]
	}
	tx, err := sh.conn.BeginTx(qctx, nil)
	if err != nil {
		sh.errorf("Error: %v", err)
		return 1
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(qctx, "INSERT INTO "+qt+" VALUES("+strings.TrimSuffix(strings.Repeat("?,", len(cols)), ",")+")")
	if err != nil {
		sh.errorf("Error: %v", err)
		return 1
	}
	defer ins.Close()
	status := 0
	for i, rec := range records {
		vals := make([]any, len(cols))
		for j := range vals {
			if j < len(rec) {
				vals[j] = rec[j]
			}
		}
		if len(rec) != len(cols) {
			sh.errorf("%s:%d: expected %d columns but found %d - %s", file, i+1+skip, len(cols), len(rec),
				map[bool]string{true: "filling the rest with NULL", false: "extras ignored"}[len(rec) < len(cols)])
		}
		if _, err := ins.ExecContext(qctx, vals...); err != nil {
			sh.errorf("%s:%d: INSERT failed: %v", file, i+1+skip, err)
			status = 1
		}
	}
	if err := tx.Commit(); err != nil {
		sh.errorf("Error: %v", err)
		return 1
	}
	return status
}

// dump prints the schema and rows as SQL, as .dump does.
func (sh *shell) dump(ctx context.Context, args []string) int {
	pattern := "%"
	if len(args) > 0 {
		pattern = args[0]
	}
	qctx, cancel := context.WithTimeout(ctx, sh.timeout)
	defer cancel()
	type obj struct{ typ, name, sql string }
	rows, err := sh.conn.QueryContext(qctx, `SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL
		AND name NOT LIKE 'sqlite_%' AND tbl_name LIKE ?1 ORDER BY type='table' DESC, rowid`, pattern)
	if err != nil {
		sh.errorf("Error: %v", err)
		return 1
	}
	var objs []obj
	for rows.Next() {
		var o obj
		if err := rows.Scan(&o.typ, &o.name, &o.sql); err != nil {
			rows.Close()
			sh.errorf("Error: %v", err)
			return 1
		}
		objs = append(objs, o)
	}
	rows.Close()
	out := sh.out
	out.WriteString("PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\n")
	for _, o := range objs {
		out.WriteString(o.sql + ";\n")
		if o.typ != "table" {
			continue
		}
		cols, err := sh.queryStrings(qctx, `SELECT name FROM pragma_table_info(?1)`, o.name)
		if err != nil {
			sh.errorf("Error: %v", err)
			return 1
		}
		quoted := make([]string, len(cols))
		for i, c := range cols {
			quoted[i] = "quote(" + quoteIdent(c) + ")"
		}
		name := o.name
		if !plainIdent.MatchString(name) {
			name = quoteIdent(name)
		}
		inserts, err := sh.queryStrings(qctx, "SELECT 'INSERT INTO ' || ?1 || ' VALUES(' || "+
			strings.Join(quoted, " || ',' || ")+" || ');' FROM "+quoteIdent(o.name), name)
		if err != nil {
			sh.errorf("Error: %v", err)
			return 1
		}
		for _, ins := range inserts {
			out.WriteString(ins + "\n")
		}
	}
	out.WriteString("COMMIT;\n")
	return 0
}

var plainIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
