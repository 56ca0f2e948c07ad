package coreutils

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

// lquote quotes an operand as GNU's quote() does in a UTF-8 locale.
func lquote(s string) string { return "‘" + s + "’" }

func runTrue(context.Context, *command.Env) int  { return 0 }
func runFalse(context.Context, *command.Env) int { return 1 }

var basenameSpec = getopt.Spec{
	Usage: []string{"NAME [SUFFIX]", "OPTION... NAME..."},
	Options: []getopt.Option{
		{Short: 'a', Long: "multiple"}, {Short: 's', Long: "suffix", Arg: getopt.Required, ArgName: "SUFFIX"},
		{Short: 'z', Long: "zero"},
	},
}

// baseName is POSIX basename without suffix removal.
func baseName(s string) string {
	t := strings.TrimRight(s, "/")
	if t == "" {
		if s == "" {
			return ""
		}
		return "/"
	}
	if i := strings.LastIndex(t, "/"); i >= 0 {
		t = t[i+1:]
	}
	return t
}

// dirName is POSIX dirname.
func dirName(s string) string {
	t := strings.TrimRight(s, "/")
	if t == "" {
		if s == "" {
			return "."
		}
		return "/"
	}
	i := strings.LastIndex(t, "/")
	if i < 0 {
		return "."
	}
	t = strings.TrimRight(t[:i], "/")
	if t == "" {
		return "/"
	}
	return t
}

func runBasename(ctx context.Context, env *command.Env) int {
	opts, names, code, ok := basenameSpec.Run(env)
	if !ok {
		return code
	}
	suffix, all := opts.Value("suffix")
	all, zero := all || opts.Has("multiple"), opts.Has("zero")
	if len(names) == 0 {
		return usageFail(env, 1, "missing operand")
	}
	if !all {
		if len(names) > 2 {
			return usageFail(env, 1, "extra operand "+lquote(names[2]))
		}
		if len(names) == 2 {
			suffix = names[1]
		}
		names = names[:1]
	}
	o := newOut(env)
	end := "\n"
	if zero {
		end = "\x00"
	}
	for _, n := range names {
		b := baseName(n)
		if suffix != "" && b != suffix && strings.HasSuffix(b, suffix) && b != "/" {
			b = strings.TrimSuffix(b, suffix)
		}
		o.WriteString(b + end)
	}
	return o.finish(env, 0)
}

var dirnameSpec = getopt.Spec{
	Usage:   []string{"[OPTION] NAME..."},
	Options: []getopt.Option{{Short: 'z', Long: "zero"}},
}

func runDirname(ctx context.Context, env *command.Env) int {
	opts, names, code, ok := dirnameSpec.Run(env)
	if !ok {
		return code
	}
	zero := len(opts) > 0
	if len(names) == 0 {
		return usageFail(env, 1, "missing operand")
	}
	o := newOut(env)
	end := "\n"
	if zero {
		end = "\x00"
	}
	for _, n := range names {
		o.WriteString(dirName(n) + end)
	}
	return o.finish(env, 0)
}

// parseDuration reads GNU sleep/timeout intervals: a floating number with
// an optional s, m, h or d suffix; "inf" and "infinity" sleep forever.
func parseDuration(s string) (time.Duration, bool) {
	mult := 1.0
	num := s
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 's':
			num = s[:n-1]
		case 'm':
			num, mult = s[:n-1], 60
		case 'h':
			num, mult = s[:n-1], 3600
		case 'd':
			num, mult = s[:n-1], 86400
		}
	}
	if num == "" || strings.HasPrefix(num, "0x") || strings.HasPrefix(num, "0X") || strings.ContainsAny(num, "_") {
		return 0, false
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) || f < 0 || math.IsNaN(f) {
		return 0, false
	}
	secs := f * mult
	if secs >= float64(math.MaxInt64/int64(time.Second)) {
		return time.Duration(math.MaxInt64), true
	}
	d := time.Duration(secs * float64(time.Second))
	if d == 0 && secs > 0 {
		d = 1 // at least a nanosecond, as a tiny positive interval still sleeps
	}
	return d, true
}

var sleepSpec = getopt.Spec{Usage: []string{"NUMBER[SUFFIX]..."}, Extra: []string{"NUMBER[smhd]"}}

func runSleep(ctx context.Context, env *command.Env) int {
	_, args, code, ok := sleepSpec.Run(env)
	if !ok {
		return code
	}
	if len(args) == 0 {
		return usageFail(env, 1, "missing operand")
	}
	var total time.Duration
	bad := false
	for _, a := range args {
		d, ok := parseDuration(a)
		if !ok {
			env.Errorf("invalid time interval %s", lquote(a))
			bad = true
			continue
		}
		if total > math.MaxInt64-d {
			total = math.MaxInt64
		} else {
			total += d
		}
	}
	if bad {
		return usageFail(env, 1, "")
	}
	t := time.NewTimer(total)
	defer t.Stop()
	select {
	case <-t.C:
		return 0
	case <-ctx.Done():
		return statusCanceled
	}
}

var envSpec = getopt.Spec{
	Usage:       []string{"[OPTION]... [-] [NAME=VALUE]... [COMMAND [ARG]...]"},
	InOrder:     true,
	UsageStatus: 125,
	Options: []getopt.Option{
		{Short: 'i', Long: "ignore-environment"}, {Short: '0', Long: "null"},
		{Short: 'u', Long: "unset", Arg: getopt.Required, ArgName: "NAME"},
		{Short: 'C', Long: "chdir", Arg: getopt.Required, ArgName: "DIR"},
	},
	Extra: []string{"NAME=VALUE"},
}

func runEnv(ctx context.Context, env *command.Env) int {
	opts, args, code, ok := envSpec.Run(env)
	if !ok {
		return code
	}
	ignore, zero, unset := opts.Has("ignore-environment"), opts.Has("null"), opts.Values("unset")
	chdir, _ := opts.Value("chdir")
	if len(args) > 0 && args[0] == "-" {
		ignore = true
		args = args[1:]
	}
	var vars []string
	if !ignore {
		vars = append(vars, environOf(ctx, env)...)
	}
	for _, u := range unset {
		if u == "" || strings.Contains(u, "=") {
			env.Errorf("cannot unset %s: Invalid argument", lquote(u))
			return 125
		}
		vars = removeVar(vars, u)
	}
	for len(args) > 0 && strings.Contains(args[0], "=") && !strings.HasPrefix(args[0], "=") {
		name, _, _ := strings.Cut(args[0], "=")
		vars = append(removeVar(vars, name), args[0])
		args = args[1:]
	}
	if len(args) == 0 {
		if chdir != "" {
			env.Errorf("must specify command with --chdir (-C)")
			return usageFail(env, 125, "")
		}
		o := newOut(env)
		end := "\n"
		if zero {
			end = "\x00"
		}
		for _, v := range vars {
			o.WriteString(v + end)
		}
		return o.finish(env, 0)
	}
	if zero {
		env.Errorf("cannot specify --null (-0) with command")
		return usageFail(env, 125, "")
	}
	if chdir != "" {
		env.Errorf("cannot change directory to %s: not supported in the runner", lquote(chdir))
		return 125
	}
	if env.Exec == nil {
		env.Errorf("%s: cannot run commands here", lquote(args[0]))
		return 126
	}
	return env.Exec(command.WithEnviron(ctx, vars), args, env.Stdin, env.Stdout, env.Stderr)
}

// environOf is the environment the command runs with: the one env or
// timeout handed down through ctx, else the caller's.
func environOf(ctx context.Context, env *command.Env) []string {
	if vars, ok := command.EnvironFrom(ctx); ok {
		return vars
	}
	return env.Environ
}

func removeVar(vars []string, name string) []string {
	out := vars[:0:0]
	for _, v := range vars {
		if n, _, _ := strings.Cut(v, "="); n != name {
			out = append(out, v)
		}
	}
	return out
}

var printenvSpec = getopt.Spec{
	Usage:       []string{"[OPTION]... [VARIABLE]..."},
	UsageStatus: 2,
	Options:     []getopt.Option{{Short: '0', Long: "null"}},
}

func runPrintenv(ctx context.Context, env *command.Env) int {
	opts, names, code, ok := printenvSpec.Run(env)
	if !ok {
		return code
	}
	zero := len(opts) > 0
	end := "\n"
	if zero {
		end = "\x00"
	}
	o := newOut(env)
	vars := environOf(ctx, env)
	if len(names) == 0 {
		for _, v := range vars {
			o.WriteString(v + end)
		}
		return o.finish(env, 0)
	}
	status := 0
	for _, n := range names {
		found := false
		if !strings.Contains(n, "=") {
			for _, v := range vars {
				if name, val, _ := strings.Cut(v, "="); name == n {
					o.WriteString(val + end)
					found = true
				}
			}
		}
		if !found {
			status = 1
		}
	}
	return o.finish(env, status)
}

// binDir is where `which` says runner commands live when the view has no
// program folders to search (a command run outside the shell).
const binDir = "/bin/"

var whichSpec = getopt.Spec{
	Usage:       []string{"[-a] NAME..."},
	UsageStatus: 2,
	Options:     []getopt.Option{{Short: 'a', Long: "all"}},
}

// defaultPath is PATH when the environment has none, as the shell's.
const defaultPath = "/usr/local/bin:/usr/bin:/bin"

func runWhich(ctx context.Context, env *command.Env) int {
	opts, names, code, ok := whichSpec.Run(env)
	if !ok {
		return code
	}
	all := opts.Has("all")
	if len(names) == 0 {
		return 1
	}
	o := newOut(env)
	status := 0
	for _, n := range names {
		switch {
		case strings.Contains(n, "/"):
			// A path names a program only when it exists and is executable.
			if fi, err := env.FS.Stat(n); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				o.WriteString(n + "\n")
			} else {
				status = 1
			}
		default:
			found := whichPath(env, n, all)
			if len(found) == 0 {
				status = 1
			}
			for _, p := range found {
				o.WriteString(p + "\n")
			}
		}
	}
	return o.finish(env, status)
}

// whichPath finds name in PATH: the executable files of its folders (the
// shell lists the runner's commands in /bin and /usr/bin). A view without
// those folders answers from the command table.
func whichPath(env *command.Env, name string, all bool) []string {
	pathVar := defaultPath
	if env.Getenv != nil {
		if v := env.Getenv("PATH"); v != "" {
			pathVar = v
		}
	}
	var found []string
	for _, dir := range strings.Split(pathVar, ":") {
		if dir == "" {
			dir = "."
		}
		p := strings.TrimSuffix(dir, "/") + "/" + name
		if fi, err := env.FS.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			found = append(found, p)
			if !all {
				return found
			}
		}
	}
	if _, err := env.FS.Stat("/usr/bin"); err != nil && len(found) == 0 && isCommand(env, name) {
		found = append(found, binDir+name)
	}
	return found
}

// isCommand reports whether name is a runner command: the runner's answer
// when it offers one, else this package's own table.
func isCommand(env *command.Env, name string) bool {
	if env.HasCommand != nil {
		return env.HasCommand(name)
	}
	for _, s := range Commands() {
		if s.Name == name {
			return true
		}
	}
	return false
}

// statusTimedOut is timeout's status when the command ran out of time.
const statusTimedOut = 124

var timeoutSpec = getopt.Spec{
	Usage:       []string{"[OPTION] DURATION COMMAND [ARG]..."},
	InOrder:     true,
	UsageStatus: 125,
	Options: []getopt.Option{
		{Long: "preserve-status"}, {Long: "foreground"}, {Short: 'v', Long: "verbose"},
		{Short: 's', Long: "signal", Arg: getopt.Required, ArgName: "SIGNAL"},
		{Short: 'k', Long: "kill-after", Arg: getopt.Required, ArgName: "DURATION"},
	},
}

func runTimeout(ctx context.Context, env *command.Env) int {
	opts, args, code, ok := timeoutSpec.Run(env)
	if !ok {
		return code
	}
	preserve := opts.Has("preserve-status")
	kill, _ := opts.Value("kill-after")
	if len(args) < 2 {
		if len(args) == 0 {
			return usageFail(env, 125, "missing operand")
		}
		return usageFail(env, 125, "missing operand after "+lquote(args[0]))
	}
	if kill != "" {
		if _, ok := parseDuration(kill); !ok {
			env.Errorf("invalid time interval %s", lquote(kill))
			return usageFail(env, 125, "")
		}
	}
	d, ok := parseDuration(args[0])
	if !ok {
		env.Errorf("invalid time interval %s", lquote(args[0]))
		return usageFail(env, 125, "")
	}
	if env.Exec == nil {
		env.Errorf("failed to run command %s: not supported here", lquote(args[1]))
		return 126
	}
	sub, cancel := ctx, context.CancelFunc(func() {})
	if d > 0 {
		sub, cancel = context.WithTimeout(ctx, d)
	}
	defer cancel()
	if vars, ok := command.EnvironFrom(ctx); ok {
		sub = command.WithEnviron(sub, vars)
	}
	status := env.Exec(sub, args[1:], env.Stdin, env.Stdout, env.Stderr)
	if ctx.Err() == nil && errors.Is(sub.Err(), context.DeadlineExceeded) {
		if preserve {
			return 128 + int(syscall.SIGTERM)
		}
		return statusTimedOut
	}
	return status
}

// runTime runs a command and reports its times on stderr as bash's `time`
// keyword does (or POSIX's -p format). User and system times are the
// runner process's, which runs one command at a time.
var timeSpec = getopt.Spec{
	Usage:   []string{"[-p] COMMAND [ARG]..."},
	InOrder: true,
	Options: []getopt.Option{{Short: 'p', Long: "portability"}},
}

func runTime(ctx context.Context, env *command.Env) int {
	opts, args, code, ok := timeSpec.Run(env)
	if !ok {
		return code
	}
	posix := len(opts) > 0
	start := time.Now()
	var before syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	status := 0
	if len(args) > 0 {
		if env.Exec == nil {
			env.Errorf("cannot run %s: not supported here", lquote(args[0]))
			return 126
		}
		status = env.Exec(ctx, args, env.Stdin, env.Stdout, env.Stderr)
	}
	real := time.Since(start)
	var after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	user := time.Duration(after.Utime.Nano() - before.Utime.Nano())
	sys := time.Duration(after.Stime.Nano() - before.Stime.Nano())
	if posix {
		fmt.Fprintf(env.Stderr, "real %.2f\nuser %.2f\nsys %.2f\n", real.Seconds(), user.Seconds(), sys.Seconds())
	} else {
		fmt.Fprintf(env.Stderr, "\nreal\t%s\nuser\t%s\nsys\t%s\n", bashTime(real), bashTime(user), bashTime(sys))
	}
	return status
}

// bashTime formats a duration as bash's TIMEFORMAT default: 0m0.003s.
func bashTime(d time.Duration) string {
	ms := d.Milliseconds()
	return fmt.Sprintf("%dm%d.%03ds", ms/60000, ms/1000%60, ms%1000)
}
