package coreutils

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
	"github.com/wsfs/wsfs/runner/internal/printfmt"
)

// tempChars are the characters GNU mktemp puts in place of the X's.
const tempChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

var mktempSpec = getopt.Spec{
	Usage: []string{"[OPTION]... [TEMPLATE]"},
	Options: []getopt.Option{
		{Short: 'd', Long: "directory"}, {Short: 'u', Long: "dry-run"}, {Short: 'q', Long: "quiet"}, {Short: 't'},
		{Short: 'p', Arg: getopt.Required, ArgName: "DIR", Key: "tmpdir"},
		{Long: "tmpdir", Arg: getopt.Optional, ArgName: "DIR"}, {Long: "suffix", Arg: getopt.Required, ArgName: "SUFF"},
	},
	Extra: []string{"TEMPLATE (ending in XXX)"},
}

// runMktemp creates a file (0600) or, with -d, a folder (0700) with a
// unique name and prints it. Without a template it is tmp.XXXXXXXXXX in
// $TMPDIR (when that is a folder of the view) or /tmp, the command's own
// scratch folder.
func runMktemp(_ context.Context, env *command.Env) int {
	opts, args, code, ok := mktempSpec.Run(env)
	if !ok {
		return code
	}
	dir, dryRun, quiet, inTmp := opts.Has("directory"), opts.Has("dry-run"), opts.Has("quiet"), opts.Has("t")
	tmpdir, tmpdirSet := opts.Value("tmpdir")
	suffix, suffixSet := opts.Value("suffix")
	fail := func(format string, a ...any) int {
		env.Errorf(format, a...)
		return 1
	}
	if len(args) > 1 {
		return usageFail(env, 1, "too many templates")
	}
	template := "tmp.XXXXXXXXXX"
	if len(args) == 1 {
		template = args[0]
	} else {
		tmpdirSet = true
	}
	if suffixSet {
		if !strings.HasSuffix(template, "X") {
			return fail("with --suffix, template %s must end in X", printfmt.LocaleQuote(template))
		}
	} else if i := strings.LastIndexByte(template, 'X'); i >= 0 {
		template, suffix = template[:i+1], template[i+1:]
	}
	if strings.Contains(suffix, "/") {
		return fail("invalid suffix %s, contains directory separator", printfmt.LocaleQuote(suffix))
	}
	xs := len(template) - len(strings.TrimRight(template, "X"))
	if xs < 3 {
		return fail("too few X's in template %s", printfmt.LocaleQuote(template+suffix))
	}
	if tmpdirSet || inTmp {
		base := tmpdir
		if base == "" {
			// A $TMPDIR the agent set counts when it is a folder of the view.
			if d := env.Getenv("TMPDIR"); d != "" {
				if fi, err := env.FS.Stat(d); err == nil && fi.IsDir() {
					base = d
				}
			}
		}
		if base == "" {
			base = "/tmp"
		}
		switch {
		case inTmp && !tmpdirSet && strings.Contains(template, "/"):
			return fail("invalid template, %s, contains directory separator", printfmt.LocaleQuote(template+suffix))
		case strings.HasPrefix(template, "/"):
			return fail("invalid template, %s; with --tmpdir, it may not be absolute", printfmt.LocaleQuote(template+suffix))
		}
		template = strings.TrimSuffix(base, "/") + "/" + template
	}
	stem := template[:len(template)-xs]
	var err error
	for range 100 {
		name := stem + randomChars(xs) + suffix
		switch {
		case dryRun:
			_, err = env.FS.Lstat(name)
			if errors.Is(err, fs.ErrNotExist) {
				err = nil
				if _, perr := env.FS.Stat(dirOf(name)); perr != nil {
					err = perr
				}
			} else if err == nil {
				err = fs.ErrExist
			}
		case dir:
			err = env.FS.Mkdir(name, 0o700)
		default:
			var f command.File
			f, err = env.FS.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
			if err == nil {
				err = f.Close()
			}
		}
		if err == nil {
			fmt.Fprintln(env.Stdout, name)
			return 0
		}
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	kind := "file"
	if dir {
		kind = "directory"
	}
	if quiet {
		return 1 // -q silences only the failure to create
	}
	return fail("failed to create %s via template %s: %s", kind, printfmt.LocaleQuote(template+suffix), command.Strerror(err))
}

func dirOf(name string) string {
	if i := strings.LastIndexByte(name, '/'); i > 0 {
		return name[:i]
	} else if i == 0 {
		return "/"
	}
	return "."
}

func randomChars(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = tempChars[int(b[i])%len(tempChars)]
	}
	return string(b)
}
