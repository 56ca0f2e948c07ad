package xan

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"
)

var toCmd = &subcommand{
	name:    "to",
	summary: "Convert CSV to json, jsonl/ndjson, md or txt",
	usage:   []string{"to <format> [options] [<input>]"},
	about: `
Formats: json (an array of objects, pretty-printed), jsonl / ndjson (one
object per line), md (a Markdown table), txt (one column's cells, one per
line). In json output, a column whose sampled non-empty cells are all
integers (or all numbers) is written as numbers, as xan does; everything
else stays a string.`,
	flags: []flagDef{
		{"", "--sample-size", "<n>", "Rows sampled to infer column types (default 512; -1: all)."},
		{"", "--nulls", "", "Write empty cells as null."},
		{"", "--omit", "", "Leave empty cells out of the objects."},
		{"-s", "--select", "<column>", "txt: the column to write."},
	},
	run: func(c *call) error {
		if len(c.args) == 0 {
			return usagef("missing the format (json, jsonl, ndjson, md, txt)")
		}
		format := c.args[0]
		name, err := c.oneInput(c.args[1:])
		if err != nil {
			return err
		}
		switch format {
		case "json", "jsonl", "ndjson":
			return c.toJSON(name, format == "json")
		case "md", "markdown":
			return c.toMarkdown(name)
		case "txt", "text":
			return c.toText(name)
		}
		return usagef("cannot convert to %q: formats are json, jsonl, ndjson, md, txt", format)
	},
}

type jsonType int

const (
	typeNull jsonType = iota
	typeInt
	typeFloat
	typeString
)

func inferJSON(v string) jsonType {
	if v == "" {
		return typeNull
	}
	n, ok := parseNumber(v)
	switch {
	case !ok:
		return typeString
	case n.isInt && (n.i > 1<<53-1 || n.i < -(1<<53-1)):
		return typeString
	case n.isInt:
		return typeInt
	}
	return typeFloat
}

func mergeJSON(a, b jsonType) jsonType {
	switch {
	case a == typeNull:
		return b
	case b == typeNull:
		return a
	case a == typeString || b == typeString:
		return typeString
	case a == typeFloat || b == typeFloat:
		return typeFloat
	}
	return typeInt
}

func (c *call) toJSON(name string, array bool) error {
	sample := 512
	if v := c.str("sample-size", ""); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return usagef("--sample-size needs an integer, not %q", v)
		}
		sample = n
	}
	empty := "empty"
	if c.has("nulls") {
		empty = "null"
	} else if c.has("omit") {
		empty = "omit"
	}
	cr, err := c.open(name)
	if err != nil {
		return err
	}
	headers := cr.Headers()
	types := make([]jsonType, len(headers))
	var buffered [][]string
	for sample <= 0 || len(buffered) < sample {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		for i, v := range rec {
			types[i] = mergeJSON(types[i], inferJSON(v))
		}
		buffered = append(buffered, rec)
	}
	keys := make([]string, len(headers))
	for i, h := range headers {
		keys[i] = jsonString(h)
	}
	w := c.out.w
	n := 0
	emit := func(rec []string) error {
		if array {
			if n == 0 {
				w.WriteString("[\n  {")
			} else {
				w.WriteString(",\n  {")
			}
		} else {
			w.WriteString("{")
		}
		first := true
		for i, v := range rec {
			var val string
			switch {
			case v == "" && empty == "omit":
				continue
			case v == "" && empty == "null":
				val = "null"
			default:
				val = jsonCell(v, types[i])
			}
			if array {
				if !first {
					w.WriteString(",")
				}
				w.WriteString("\n    " + keys[i] + ": " + val)
			} else {
				if !first {
					w.WriteString(",")
				}
				w.WriteString(keys[i] + ":" + val)
			}
			first = false
		}
		if array {
			if !first {
				w.WriteString("\n  ")
			}
			_, err := w.WriteString("}")
			n++
			return err
		}
		_, err := w.WriteString("}\n")
		return err
	}
	for _, rec := range buffered {
		if err := emit(rec); err != nil {
			return err
		}
	}
	if err := each(cr, emit); err != nil {
		return err
	}
	if array {
		if n == 0 {
			w.WriteString("[]\n")
		} else {
			w.WriteString("\n]\n")
		}
	}
	return nil
}

func jsonCell(v string, t jsonType) string {
	if v == "" {
		return `""`
	}
	switch t {
	case typeInt:
		if n, ok := parseNumber(v); ok && n.isInt {
			return strconv.FormatInt(n.i, 10)
		}
	case typeFloat:
		if n, ok := parseNumber(v); ok {
			return jsonFloat(n.float())
		}
	}
	return jsonString(v)
}

// jsonString quotes s as serde_json does: only quotes, backslashes and
// control characters are escaped; invalid UTF-8 becomes U+FFFD.
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func (c *call) toMarkdown(name string) error {
	cr, err := c.openData(name)
	if cr == nil {
		return err
	}
	esc := func(s string) string {
		s = strings.NewReplacer("|", `\|`, "<", `\<`, ">", `\>`, "\r\n", "<br>", "\n", "<br>").Replace(s)
		return s
	}
	rows := [][]string{make([]string, cr.width)}
	for i, h := range cr.Headers() {
		rows[0][i] = esc(h)
	}
	if err := each(cr, func(rec []string) error {
		out := make([]string, len(rec))
		for i, v := range rec {
			out[i] = esc(v)
		}
		rows = append(rows, out)
		return nil
	}); err != nil {
		return err
	}
	widths := make([]int, cr.width)
	for i := range widths {
		widths[i] = 3
		for _, r := range rows {
			widths[i] = max(widths[i], displayWidth(r[i]))
		}
	}
	line := func(cells []string) {
		c.out.w.WriteString("|")
		for i, v := range cells {
			c.out.w.WriteString(" " + pad(v, widths[i]) + " |")
		}
		c.out.w.WriteString("\n")
	}
	line(rows[0])
	dashes := make([]string, cr.width)
	for i := range dashes {
		dashes[i] = strings.Repeat("-", widths[i])
	}
	line(dashes)
	for _, r := range rows[1:] {
		line(r)
	}
	return nil
}

func (c *call) toText(name string) error {
	cr, err := c.openData(name)
	if cr == nil {
		return err
	}
	idx, err := c.selection("select", cr)
	if err != nil {
		return err
	}
	if len(idx) != 1 {
		return fmt.Errorf("to txt writes a single column: give one with -s (columns: %s)", strings.Join(cr.Headers(), ", "))
	}
	return each(cr, func(rec []string) error {
		_, err := c.out.w.WriteString(rec[idx[0]] + "\n")
		return err
	})
}

var fromCmd = &subcommand{
	name:    "from",
	summary: "Convert json, jsonl/ndjson or txt to CSV",
	usage:   []string{"from [options] [<input>]"},
	about: `
json: an array of objects becomes one row per object, nested objects
flattened into dotted column names (a.b); arrays and objects below that
are written as JSON text; null is an empty cell; columns are the keys in
order of first appearance across all records. An array of scalars gives a
"value" column; a single object gives key,value rows (--single-object:
one row). jsonl/ndjson: one JSON value per line, as json's array items.
txt: one row per line, in the column named by -c (default "line").
The format comes from the file extension or -f (needed for stdin).`,
	flags: []flagDef{
		{"-f", "--format", "<format>", "json, jsonl, ndjson or txt."},
		{"-c", "--column", "<name>", "txt: name of the column (default line)."},
		{"", "--key-column", "<name>", "json object: name of the key column (default key)."},
		{"", "--value-column", "<name>", "json object: name of the value column (default value)."},
		{"", "--single-object", "", "json object: one row instead of key,value rows."},
	},
	run: func(c *call) error {
		name, err := c.oneInput(c.args)
		if err != nil {
			return err
		}
		format := c.str("format", "")
		if format == "" {
			format = strings.TrimPrefix(strings.ToLower(path.Ext(name)), ".")
			if name == "-" || format == "" {
				return usagef("give the input format with -f (json, jsonl, ndjson, txt)")
			}
		}
		raw, err := c.openRaw(name)
		if err != nil {
			return err
		}
		display := name
		if name == "-" {
			display = "<stdin>"
		}
		switch format {
		case "json":
			return c.fromJSON(raw, display, false)
		case "jsonl", "ndjson":
			return c.fromJSON(raw, display, true)
		case "txt", "text":
			return c.fromText(raw)
		}
		return usagef("cannot convert from %q: formats are json, jsonl, ndjson, txt", format)
	},
}

func (c *call) fromText(raw io.Reader) error {
	if err := c.out.Write([]string{c.str("column", "line")}); err != nil {
		return err
	}
	sc := bufio.NewScanner(raw)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if err := c.out.Write([]string{line}); err != nil {
			return err
		}
		if err := c.ctx.Err(); err != nil {
			return err
		}
	}
	return sc.Err()
}

// ordered is a JSON value decoded with object keys kept in order.
type ordered struct {
	keys []string
	vals []any // nested values: *ordered, []any, string, json.Number, bool, nil
}

// maxNesting bounds how deep JSON values and expressions may nest, so
// hostile input gets an error instead of exhausting the stack.
const maxNesting = 500

var errTooDeep = fmt.Errorf("nested more than %d levels deep", maxNesting)

func decodeOrdered(dec *json.Decoder, depth int) (any, error) {
	if depth > maxNesting {
		return nil, errTooDeep
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &ordered{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeOrdered(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o.keys = append(o.keys, kt.(string))
				o.vals = append(o.vals, v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			var a []any
			for dec.More() {
				v, err := decodeOrdered(dec, depth+1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			if a == nil {
				a = []any{}
			}
			return a, err
		}
	}
	return tok, nil
}

// compactJSON writes v as compact JSON text, keys in order.
func compactJSON(b *strings.Builder, v any) {
	switch t := v.(type) {
	case *ordered:
		b.WriteByte('{')
		for i, k := range t.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(jsonString(k) + ":")
			compactJSON(b, t.vals[i])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			compactJSON(b, e)
		}
		b.WriteByte(']')
	case string:
		b.WriteString(jsonString(t))
	case json.Number:
		b.WriteString(t.String())
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case nil:
		b.WriteString("null")
	}
}

func scalarCell(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case json.Number:
		return t.String()
	case bool:
		return strconv.FormatBool(t)
	}
	var b strings.Builder
	compactJSON(&b, v)
	return b.String()
}

// flattenInto collects dotted paths to leaf values of nested objects.
func flattenInto(prefix string, v any, cols *[]string, seen map[string]bool, row map[string]string) {
	if o, ok := v.(*ordered); ok && (prefix == "" || len(o.keys) > 0) {
		for i, k := range o.keys {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			flattenInto(p, o.vals[i], cols, seen, row)
		}
		return
	}
	if prefix == "" {
		prefix = "value"
	}
	if !seen[prefix] {
		seen[prefix] = true
		*cols = append(*cols, prefix)
	}
	row[prefix] = scalarCell(v)
}

const maxJSONInput = 256 << 20

func (c *call) fromJSON(raw io.Reader, display string, lines bool) error {
	data, err := io.ReadAll(io.LimitReader(raw, maxJSONInput+1))
	if err != nil {
		return fmt.Errorf("%s: %w", display, err)
	}
	if len(data) > maxJSONInput {
		return fmt.Errorf("%s: JSON input over %d MiB; split it (jsonl streams line by line through jq -c)", display, maxJSONInput>>20)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var records []any
	if lines {
		for {
			v, err := decodeOrdered(dec, 0)
			if err == io.EOF {
				break
			}
			if err != nil {
				return jsonError(display, data, dec, err)
			}
			records = append(records, v)
		}
	} else {
		v, err := decodeOrdered(dec, 0)
		if err == io.EOF {
			return fmt.Errorf("%s: empty input, expected a JSON array or object", display)
		}
		if err != nil {
			return jsonError(display, data, dec, err)
		}
		if _, err := dec.Token(); err != io.EOF {
			return fmt.Errorf("%s: extra data after the JSON value (use -f jsonl for one value per line)", display)
		}
		switch t := v.(type) {
		case []any:
			records = t
		case *ordered:
			if !c.has("single-object") {
				kc, vc := c.str("key-column", "key"), c.str("value-column", "value")
				if err := c.out.Write([]string{kc, vc}); err != nil {
					return err
				}
				for i, k := range t.keys {
					if err := c.out.Write([]string{k, scalarCell(t.vals[i])}); err != nil {
						return err
					}
				}
				return nil
			}
			records = []any{t}
		default:
			records = []any{v}
		}
	}
	var cols []string
	seen := map[string]bool{}
	rows := make([]map[string]string, len(records))
	for i, r := range records {
		rows[i] = map[string]string{}
		flattenInto("", r, &cols, seen, rows[i])
	}
	if len(cols) == 0 {
		return nil
	}
	if err := c.out.Write(cols); err != nil {
		return err
	}
	for _, r := range rows {
		if err := c.out.Write(pickMap(r, cols)); err != nil {
			return err
		}
	}
	return nil
}

func pickMap(m map[string]string, cols []string) []string {
	out := make([]string, len(cols))
	for i, k := range cols {
		out[i] = m[k]
	}
	return out
}

func jsonError(display string, data []byte, dec *json.Decoder, err error) error {
	off := dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	off = int64(math.Min(float64(off), float64(len(data))))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	if err == io.ErrUnexpectedEOF {
		err = errors.New("unexpected end of input")
	}
	return fmt.Errorf("%s: line %d: invalid JSON: %v", display, line, err)
}
