package textutils

import (
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

var base64Spec = getopt.Spec{
	Options: []getopt.Option{
		{Short: 'd', Long: "decode"}, {Short: 'i', Long: "ignore-garbage"},
		{Short: 'w', Long: "wrap", Arg: getopt.Required, ArgName: "COLS"},
	},
}

// Base64 implements base64.
func Base64(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	flags, operands, st, ok := base64Spec.Run(env)
	if !ok {
		return st
	}
	decode, garbage := false, false
	wrap := 76
	for _, f := range flags {
		switch f.Key {
		case "decode":
			decode = true
		case "ignore-garbage":
			garbage = true
		case "wrap":
			n, err := strconv.Atoi(f.Value)
			if err != nil || n < 0 {
				env.Errorf("invalid wrap size: %s", quote(f.Value))
				return 1
			}
			wrap = n
		}
	}
	if len(operands) > 1 {
		return r.usage(1, "extra operand %s", quote(operands[1]))
	}
	name := "-"
	if len(operands) == 1 {
		name = operands[0]
	}
	data, err := r.readFile(name)
	if err != nil {
		if r.ctx.Err() != nil {
			return 1
		}
		if isOpenErr(err) {
			env.Errorf("%s: %s", name, command.Strerror(err))
		} else {
			env.Errorf("read error: %s", command.Strerror(err))
		}
		return 1
	}
	if !decode {
		enc := base64.StdEncoding.EncodeToString(data)
		if wrap == 0 {
			r.out.WriteString(enc)
			return r.finish(0)
		}
		for len(enc) > 0 {
			n := min(wrap, len(enc))
			r.out.WriteString(enc[:n])
			r.out.WriteByte('\n')
			enc = enc[n:]
		}
		return r.finish(0)
	}
	var clean []byte
	for _, c := range data {
		switch {
		case c == '\n':
		case isAlpha(c) || isDigit(c) || c == '+' || c == '/' || c == '=':
			clean = append(clean, c)
		case garbage:
		default:
			clean = append(clean, 0)
		}
	}
	// Decode block by block so a bad block still yields what came before.
	for len(clean) > 0 {
		n := min(4, len(clean))
		block := clean[:n]
		clean = clean[n:]
		if garbage && n < 4 {
			block = append(block, bytes.Repeat([]byte{'='}, 4-n)...)
		}
		out := make([]byte, 3)
		k, err := base64.StdEncoding.Decode(out, block)
		if err != nil || (n < 4 && !garbage) {
			// Keep what the valid prefix of the bad block encodes, as GNU does.
			valid := len(block)
			if ce, ok := err.(base64.CorruptInputError); ok && n == 4 {
				valid = int(ce)
			}
			part := bytes.TrimRight(block[:valid], "=")
			k = 0
			if len(part) >= 2 {
				padded := append(append([]byte(nil), part...), bytes.Repeat([]byte{'='}, 4-len(part))...)
				k, _ = base64.StdEncoding.Decode(out, padded)
			}
			r.out.Write(out[:k])
			r.finish(0)
			env.Errorf("invalid input")
			return 1
		}
		r.out.Write(out[:k])
		if bytes.IndexByte(block, '=') >= 0 && len(clean) > 0 {
			// Data after padding: GNU stops here.
			r.finish(0)
			env.Errorf("invalid input")
			return 1
		}
	}
	return r.finish(0)
}

type sumAlgo struct {
	name string // "MD5", "SHA1", …
	size int    // hex digits
	new  func() hash.Hash
}

// Md5sum implements md5sum.
func Md5sum(ctx context.Context, env *command.Env) int {
	return checksum(ctx, env, sumAlgo{"MD5", 32, md5.New})
}

// Sha1sum implements sha1sum.
func Sha1sum(ctx context.Context, env *command.Env) int {
	return checksum(ctx, env, sumAlgo{"SHA1", 40, sha1.New})
}

// Sha256sum implements sha256sum.
func Sha256sum(ctx context.Context, env *command.Env) int {
	return checksum(ctx, env, sumAlgo{"SHA256", 64, sha256.New})
}

// Sha512sum implements sha512sum.
func Sha512sum(ctx context.Context, env *command.Env) int {
	return checksum(ctx, env, sumAlgo{"SHA512", 128, sha512.New})
}

func (r *run) hashFile(name string, algo sumAlgo) (string, error) {
	f, err := r.open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := algo.new()
	if _, err := io.Copy(h, &ctxReader{r: f, ctx: r.ctx}); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// escapeName applies GNU's escaping of names holding \ or a newline; ok
// reports whether the line needs the leading backslash.
func escapeName(name string) (string, bool) {
	if !strings.ContainsAny(name, "\\\n\r") {
		return name, false
	}
	r := strings.NewReplacer("\\", "\\\\", "\n", "\\n", "\r", "\\r")
	return r.Replace(name), true
}

func unescapeName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

var checksumSpec = getopt.Spec{
	Options: []getopt.Option{
		{Short: 'b', Long: "binary"}, {Short: 'c', Long: "check"}, {Long: "tag"}, {Short: 't', Long: "text"},
		{Short: 'z', Long: "zero"}, {Long: "ignore-missing"}, {Long: "quiet"}, {Long: "status"}, {Long: "strict"},
		{Short: 'w', Long: "warn"},
	},
}

func checksum(ctx context.Context, env *command.Env, algo sumAlgo) int {
	r := newRun(ctx, env)
	flags, operands, st, ok := checksumSpec.Run(env)
	if !ok {
		return st
	}
	var binary, check, tag, zero, ignoreMissing, quiet, status, strict, warn bool
	for _, f := range flags {
		switch f.Key {
		case "binary":
			binary = true
		case "text":
			binary = false
		case "check":
			check = true
		case "tag":
			tag = true
		case "zero":
			zero = true
		case "ignore-missing":
			ignoreMissing = true
		case "quiet":
			quiet = true
		case "status":
			status = true
		case "strict":
			strict = true
		case "warn":
			warn = true
		}
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	if !check {
		if quiet || status || strict || warn || ignoreMissing {
			opt := map[bool]string{true: "--quiet"}[quiet]
			switch {
			case status:
				opt = "--status"
			case strict:
				opt = "--strict"
			case warn:
				opt = "--warn"
			case ignoreMissing:
				opt = "--ignore-missing"
			}
			return r.usage(1, "the %s option is meaningful only when verifying checksums", opt)
		}
		exit := 0
		for _, name := range operands {
			if r.stopped() {
				break
			}
			sum, err := r.hashFile(name, algo)
			if err != nil {
				if r.ctx.Err() != nil {
					break
				}
				env.Errorf("%s: %s", name, command.Strerror(err))
				exit = 1
				continue
			}
			shown, esc := name, false
			if !zero {
				shown, esc = escapeName(name)
			}
			if esc {
				r.out.WriteByte('\\')
			}
			if tag {
				fmt.Fprintf(r.out, "%s (%s) = %s", algo.name, shown, sum)
			} else {
				mark := " "
				if binary {
					mark = "*"
				}
				fmt.Fprintf(r.out, "%s %s%s", sum, mark, shown)
			}
			if zero {
				r.out.WriteByte(0)
			} else {
				r.out.WriteByte('\n')
			}
		}
		return r.finish(exit)
	}
	if tag {
		return r.usage(1, "the --tag option is meaningless when verifying checksums")
	}
	exit := 0
	for _, listName := range operands {
		f, err := r.open(listName)
		if err != nil {
			env.Errorf("%s: %s", listName, command.Strerror(err))
			exit = 1
			continue
		}
		display := listName
		if listName == "-" {
			display = "standard input"
		}
		br := bufio.NewReader(f)
		var bad, failed, unreadable, okCount, lineNo int
		matched := false
		for {
			if r.stopped() {
				break
			}
			line, rerr := br.ReadString('\n')
			if line == "" && rerr != nil {
				break
			}
			lineNo++
			line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
			if strings.HasPrefix(strings.TrimLeft(line, " \t"), "#") {
				continue
			}
			want, name, ok := parseSumLine(line, algo)
			if !ok {
				bad++
				if warn {
					env.Errorf("%s: %d: improperly formatted %s checksum line", display, lineNo, algo.name)
				}
				continue
			}
			matched = true
			got, err := r.hashFile(name, algo)
			if err != nil {
				if ignoreMissing && isNotExist(err) {
					continue
				}
				unreadable++
				env.Errorf("%s: %s", name, command.Strerror(err))
				if !status {
					fmt.Fprintf(r.out, "%s: FAILED open or read\n", name)
				}
				continue
			}
			if !strings.EqualFold(got, want) {
				failed++
				if !status {
					fmt.Fprintf(r.out, "%s: FAILED\n", name)
				}
				continue
			}
			okCount++
			if !status && !quiet {
				fmt.Fprintf(r.out, "%s: OK\n", name)
			}
		}
		f.Close()
		r.out.Flush()
		if !matched {
			env.Errorf("%s: no properly formatted %s checksum lines found", display, algo.name)
			exit = 1
			continue
		}
		if !status {
			plural := func(n int, one, many string) string {
				if n == 1 {
					return one
				}
				return many
			}
			if bad > 0 {
				env.Errorf("WARNING: %d %s improperly formatted", bad, plural(bad, "line is", "lines are"))
			}
			if unreadable > 0 {
				env.Errorf("WARNING: %d listed %s could not be read", unreadable, plural(unreadable, "file", "files"))
			}
			if failed > 0 {
				env.Errorf("WARNING: %d computed %s did NOT match", failed, plural(failed, "checksum", "checksums"))
			}
			if ignoreMissing && okCount == 0 && failed == 0 && unreadable == 0 {
				env.Errorf("%s: no file was verified", display)
				exit = 1
			}
		}
		if failed > 0 || unreadable > 0 || (strict && bad > 0) {
			exit = 1
		}
	}
	return r.finish(exit)
}

func isNotExist(err error) bool {
	return strings.Contains(command.Strerror(err), "No such file")
}

// parseSumLine reads "HASH  NAME", "HASH *NAME" or "ALGO (NAME) = HASH".
func parseSumLine(line string, algo sumAlgo) (string, string, bool) {
	escaped := strings.HasPrefix(line, "\\")
	if escaped {
		line = line[1:]
	}
	if rest, ok := strings.CutPrefix(line, algo.name+" ("); ok {
		i := strings.LastIndex(rest, ") = ")
		if i < 0 {
			return "", "", false
		}
		name, sum := rest[:i], rest[i+4:]
		if len(sum) != algo.size || !isHex(sum) {
			return "", "", false
		}
		if escaped {
			name = unescapeName(name)
		}
		return sum, name, true
	}
	line = strings.TrimLeft(line, " \t")
	if len(line) < algo.size+2 || !isHex(line[:algo.size]) {
		return "", "", false
	}
	sum := line[:algo.size]
	sep := line[algo.size]
	if sep != ' ' && sep != '\t' {
		return "", "", false
	}
	name := line[algo.size+1:]
	if len(name) > 0 && (name[0] == ' ' || name[0] == '*') {
		name = name[1:]
	}
	if name == "" {
		return "", "", false
	}
	if escaped {
		name = unescapeName(name)
	}
	return sum, name, true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
