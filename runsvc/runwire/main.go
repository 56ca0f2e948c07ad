package runwire

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/wsfs/wsfs/internal/home"
)

// Main is `wsfs run ARGS` as the small front and wsfs-core both run it:
// it parses the flags once into a job, reads the script, sends the job
// once to the home's server with the caller's stdin, stdout and stderr —
// starting a server first when none runs (StartServer) — and prints the
// report. server returns the command line that starts a server for the
// home (wsfs-core mount --shared ...), up to the mount point. It returns
// the exit status: the command's, or that of the error that kept it from
// running.
func Main(args []string, stdin, stdout, stderr *os.File, server func(home, store string) ([]string, error)) int {
	a, err := ParseArgs(args)
	asJSON := a.Job.JSON || JSONAsked(args)
	if err == nil && a.Help {
		PrintHelp(stdout)
		return 0
	}
	var h string
	if err == nil {
		h, err = home.Dir(a.Home)
	}
	var fromStdin bool
	if err == nil {
		fromStdin, err = a.LoadScript(stdin)
	}
	if err != nil {
		return fail(err, asJSON, stdout, stderr)
	}
	in := stdin
	if fromStdin {
		if in, err = os.Open(os.DevNull); err != nil {
			return fail(err, asJSON, stdout, stderr)
		}
		defer in.Close()
	}
	p := home.Of(h)
	fds := [3]int{int(in.Fd()), int(stdout.Fd()), int(stderr.Fd())}
	rep, err := Call(p.RunSocket(), a.Job, fds)
	if errors.Is(err, ErrNoServer) {
		var argv []string
		if argv, err = server(h, a.Job.Store); err == nil {
			err = StartServer(p.RunSocket(), p.StartLock(), p.ServerLog(), p.SharedMount(), argv)
		}
		if err == nil {
			rep, err = Call(p.RunSocket(), a.Job, fds)
		}
	}
	if err != nil {
		return fail(err, asJSON, stdout, stderr)
	}
	return report(rep, asJSON, stdout, stderr)
}

// JSONAsked reports a --json among a verb's arguments (before "--"),
// even ones that do not parse: its errors are then JSON too.
func JSONAsked(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" || a == "-json" || a == "--json=true" || a == "-json=true" {
			return true
		}
	}
	return false
}

// report prints rep as the caller shows it and returns the exit status.
func report(rep Report, asJSON bool, stdout, stderr io.Writer) int {
	if rep.Err != nil {
		return failWith(*rep.Err, asJSON, stdout, stderr)
	}
	if asJSON {
		if err := writeJSON(stdout, rep.JSON()); err != nil {
			fmt.Fprintf(stderr, "wsfs run: %v\n", err)
			return ExitFailure
		}
	} else {
		for _, r := range rep.Refusals {
			fmt.Fprintf(stderr, "wsfs: %s\n", strings.TrimPrefix(r, "wsfs: "))
		}
	}
	if rep.Message != "" {
		for _, line := range strings.Split(rep.Message, "\n") {
			fmt.Fprintf(stderr, "wsfs run: %s\n", line)
		}
	}
	return rep.ExitCode
}

// fail prints err and returns its exit status.
func fail(err error, asJSON bool, stdout, stderr io.Writer) int {
	var ue *UsageError
	if errors.As(err, &ue) {
		e := Error{Code: CodeInvalid, Message: ue.Msg, Exit: ExitUsage}
		if asJSON {
			return failWith(e, true, stdout, stderr)
		}
		fmt.Fprintf(stderr, "wsfs run: %s\nusage: wsfs run %s\n", ue.Msg, Usage)
		return ExitUsage
	}
	var we *Error
	if errors.As(err, &we) {
		return failWith(*we, asJSON, stdout, stderr)
	}
	return failWith(Error{Code: CodeInternal, Message: err.Error(), Exit: ExitFailure}, asJSON, stdout, stderr)
}

func failWith(e Error, asJSON bool, stdout, stderr io.Writer) int {
	e.Message = UserMessage(e.Message)
	if asJSON {
		if err := WriteErrorJSON(stdout, e); err == nil {
			return e.Exit
		}
	}
	fmt.Fprintf(stderr, "wsfs run: %s\n", e.Message)
	return e.Exit
}

// WriteErrorJSON prints e as every verb's --json prints a failure.
func WriteErrorJSON(w io.Writer, e Error) error { return writeJSON(w, ErrorJSON{Error: e}) }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
