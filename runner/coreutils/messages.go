package coreutils

import (
	"fmt"
	"io"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
)

// usageFail prints "name: msg" and the "Try" line; code 0 means 1.
func usageFail(env *command.Env, code int, msg string) int {
	if msg != "" {
		env.Errorf("%s", msg)
	}
	fmt.Fprintf(env.Stderr, "Try '%s --help' for more information.\n", env.Name())
	if code == 0 {
		code = 1
	}
	return code
}

// quote returns name quoted as GNU diagnostics quote file names: 'name',
// "it's" when it holds a single quote, and $'…' escapes for control bytes.
func quote(name string) string {
	special := false
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] == 0x7f {
			special = true
			break
		}
	}
	if special {
		var b strings.Builder
		b.WriteString("'")
		for i := 0; i < len(name); i++ {
			ch := name[i]
			if ch < 0x20 || ch == 0x7f || ch == '\'' {
				b.WriteString("'$'")
				switch ch {
				case '\n':
					b.WriteString(`\n`)
				case '\t':
					b.WriteString(`\t`)
				case '\'':
					b.WriteString(`\'`)
				default:
					fmt.Fprintf(&b, `\%03o`, ch)
				}
				b.WriteString("''")
				continue
			}
			b.WriteByte(ch)
		}
		b.WriteString("'")
		return b.String()
	}
	if strings.Contains(name, "'") {
		return `"` + name + `"`
	}
	return "'" + name + "'"
}

// stickyWriter remembers the first write error so loops can stop.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	if err != nil {
		s.err = err
	}
	return n, err
}
