package getopt

import (
	"bytes"
	"errors"
	"math/rand"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/internal/testenv"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// utilLinuxGetopt finds util-linux's getopt(1), which runs glibc's
// getopt_long and prints what it parsed: the reference for Parse.
func utilLinuxGetopt(t *testing.T) string {
	if p, err := exec.LookPath("getopt"); err == nil {
		// The enhanced getopt (util-linux) answers -T with status 4.
		var ee *exec.ExitError
		if err := exec.Command(p, "-T").Run(); errors.As(err, &ee) && ee.ExitCode() == 4 {
			return p
		}
	}
	testenv.Missing(t, "util-linux getopt(1), the reference for getopt_long")
	return ""
}

// normalize prints a parse as util-linux getopt does: each option with
// its value quoted (an absent optional value as an empty quoted string),
// then " --" and the operands; in Operands mode the operands stay in
// place.
func normalize(s *Spec, opts []Opt, operands []string) string {
	var b strings.Builder
	kinds := map[string]ArgKind{}
	for _, o := range s.Options {
		kinds[o.key()] = o.Arg
	}
	for _, o := range opts {
		if o.Key == "" {
			b.WriteString(" '" + o.Value + "'")
			continue
		}
		b.WriteString(" " + o.Name)
		if kinds[o.Key] != NoArg {
			b.WriteString(" '" + o.Value + "'")
		}
	}
	b.WriteString(" --")
	for _, op := range operands {
		b.WriteString(" '" + op + "'")
	}
	return b.String()
}

// reference runs util-linux getopt for the spec; it returns its
// normalized output (without what follows an error) and its first error.
func reference(t *testing.T, bin string, s *Spec, args []string) (string, string) {
	short := ""
	switch {
	case s.Operands:
		short = "-"
	case s.InOrder:
		short = "+"
	}
	var longs []string
	for _, o := range s.Options {
		suffix := [...]string{"", ":", "::"}[o.Arg]
		if o.Short != 0 {
			short += string(o.Short) + suffix
		}
		if o.Long != "" {
			longs = append(longs, o.Long+suffix)
		}
	}
	cmd := exec.Command(bin, append([]string{"-o", short, "-l", strings.Join(longs, ","), "-n", "prog", "--"}, args...)...)
	cmd.Env = []string{"LC_ALL=C"}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	_ = cmd.Run()
	first, _, _ := strings.Cut(errb.String(), "\n")
	return strings.TrimSuffix(out.String(), "\n"), strings.TrimPrefix(first, "prog: ")
}

func TestParseMatchesGlibc(t *testing.T) {
	bin := utilLinuxGetopt(t)
	spec := &Spec{Options: []Option{
		{Short: 'a', Long: "alpha"},
		{Short: 'b', Long: "beta", Arg: Required},
		{Short: 'c', Long: "gamma", Arg: Optional},
		{Long: "gamut"},
		{Short: 'd'},
		{Long: "delta", Arg: Required},
		{Long: "help"}, {Long: "version"},
	}}
	cases := [][]string{
		{"-ab", "x", "--gam", "op1", "-c", "--gamma=3", "-cfoo", "--", "-z"},
		{"--ga", "x"}, {"-z"}, {"-b"}, {"--beta"}, {"--alpha=3"}, {"--al=3"}, {"--nope=3"},
		{"--gamm", "x"}, {"--d", "v"}, {"--delta=", "w"}, {"-", "-a", "--", "--"}, {"--=x"},
		{"-bd", "-ad"}, {"-c", "x"}, {"--beta", "-a"}, {"--he"}, {"-dab"}, {"--"},
	}
	for _, inOrder := range []bool{false, true} {
		for _, operands := range []bool{false, true} {
			s := *spec
			s.InOrder, s.Operands = inOrder, operands
			for _, args := range cases {
				checkAgainstGlibc(t, bin, &s, args)
			}
		}
	}
}

func checkAgainstGlibc(t *testing.T, bin string, s *Spec, args []string) {
	t.Helper()
	wantOut, wantErr := reference(t, bin, s, args)
	opts, operands, err := s.Parse(args)
	if wantErr != "" {
		if err == nil || err.Error() != wantErr {
			t.Errorf("%q (in order %v, operands %v): glibc says %q, Parse %v", args, s.InOrder, s.Operands, wantErr, err)
		}
		return
	}
	if err != nil {
		t.Errorf("%q: glibc accepts it (%s), Parse: %v", args, wantOut, err)
		return
	}
	if got := normalize(s, opts, operands); got != wantOut {
		t.Errorf("%q (in order %v, operands %v):\nglibc %s\nParse %s", args, s.InOrder, s.Operands, wantOut, got)
	}
}

// TestParseRandomAgainstGlibc compares Parse with glibc on random
// declarations and command lines.
func TestParseRandomAgainstGlibc(t *testing.T) {
	bin := utilLinuxGetopt(t)
	rnd := rand.New(rand.NewSource(21))
	words := []string{"al", "alpha", "alps", "b", "be", "beta", "bet", "c", "cat", "co", "color", "colour"}
	for n := 0; n < 300; n++ {
		s := &Spec{InOrder: rnd.Intn(4) == 0, Operands: rnd.Intn(4) == 0}
		usedShort := map[byte]bool{}
		usedLong := map[string]bool{}
		for k := 0; k < 2+rnd.Intn(6); k++ {
			var o Option
			if c := byte('a' + rnd.Intn(6)); rnd.Intn(3) > 0 && !usedShort[c] {
				o.Short, usedShort[c] = c, true
			}
			if w := words[rnd.Intn(len(words))]; rnd.Intn(3) > 0 && !usedLong[w] {
				o.Long, usedLong[w] = w, true
			}
			if o.Short == 0 && o.Long == "" {
				continue
			}
			o.Arg = ArgKind(rnd.Intn(3))
			s.Options = append(s.Options, o)
		}
		s.Options = append(s.Options, Option{Long: "help"}, Option{Long: "version"})
		var args []string
		for k := 0; k < rnd.Intn(6); k++ {
			switch rnd.Intn(6) {
			case 0:
				args = append(args, "op"+string(rune('0'+k)))
			case 1:
				args = append(args, "-"+string(rune('a'+rnd.Intn(7)))+string(rune('a'+rnd.Intn(7))))
			case 2:
				args = append(args, "-"+string(rune('a'+rnd.Intn(7))))
			case 3:
				w := words[rnd.Intn(len(words))]
				args = append(args, "--"+w[:1+rnd.Intn(len(w))])
			case 4:
				args = append(args, "--"+words[rnd.Intn(len(words))]+"=v")
			default:
				args = append(args, []string{"--", "-", "x"}[rnd.Intn(3)])
			}
		}
		checkAgainstGlibc(t, bin, s, args)
	}
}

func TestFlags(t *testing.T) {
	s := Spec{
		Options: []Option{
			{Short: 'n', Long: "quiet"},
			{Long: "silent", Key: "quiet"},
			{Short: 'E', Long: "regexp-extended"},
			{Short: 'r', Key: "regexp-extended"},
			{Short: 'i', Long: "in-place", Arg: Optional, ArgName: "SUFFIX"},
			{Short: 'l', Long: "line-length", Arg: Required, ArgName: "N"},
			{Short: 'T', Arg: Required, ArgName: "TERM"},
			{Long: "color", Arg: Optional, ArgName: "WHEN"},
			{Digits: true, Key: "context"},
			{Short: 'b', Hidden: true},
		},
		Extra: []string{"+FORMAT"},
	}
	want := []string{"-n, --quiet, --silent", "-E, -r, --regexp-extended", "-i[SUFFIX], --in-place[=SUFFIX]",
		"-l, --line-length=N", "-T TERM", "--color[=WHEN]", "-NUM", "+FORMAT"}
	if got := s.Flags(); !slices.Equal(got, want) {
		t.Errorf("Flags:\n got %q\nwant %q", got, want)
	}
	opts, ops, err := s.Parse([]string{"-12", "x", "-3", "--si", "-b"})
	if err != nil || len(opts) != 5 || opts[0].Value != "1" || opts[1].Index != 0 || opts[2].Index != 2 || opts[3].Key != "quiet" || !slices.Equal(ops, []string{"x"}) {
		t.Errorf("digits: %+v %q %v", opts, ops, err)
	}
}

func TestRun(t *testing.T) {
	sb := commandtest.New(t)
	s := &Spec{Usage: []string{"[OPTION]... FILE..."}, Options: []Option{{Short: 'c', Long: "no-create"}}, UsageStatus: 2}
	run := func(args ...string) (string, string, int, bool) {
		var out, errb bytes.Buffer
		env := sb.Env("/workspace", append([]string{"tool"}, args...), nil, &out, &errb)
		_, _, st, ok := s.Run(env)
		return out.String(), errb.String(), st, ok
	}
	if out, _, st, ok := run("-c", "--help", "--bogus"); ok || st != 0 || !strings.HasPrefix(out, "Usage: tool [OPTION]... FILE...\n") || !strings.Contains(out, "-c, --no-create") {
		t.Errorf("--help: %q %d %v", out, st, ok)
	}
	if out, _, st, ok := run("--vers"); ok || st != 0 || out != "tool (wsfs runner)\n" {
		t.Errorf("--version: %q %d %v", out, st, ok)
	}
	if _, errs, st, ok := run("--bogus", "--help"); ok || st != 2 || errs != "tool: unrecognized option '--bogus'\nTry 'tool --help' for more information.\n" {
		t.Errorf("--bogus: %q %d %v", errs, st, ok)
	}
	var errb bytes.Buffer
	if st := s.Usagef(sb.Env("/workspace", []string{"tool"}, nil, nil, &errb), "missing file operand"); st != 2 || errb.String() != "tool: missing file operand\nTry 'tool --help' for more information.\n" {
		t.Errorf("Usagef: %d %q", st, errb.String())
	}
}

// TestFlagsParse holds the promise of the package: every spelling the
// table shows parses back to its option.
func TestFlagsParse(t *testing.T) {
	s := Spec{Options: []Option{
		{Short: 'c', Long: "no-create"},
		{Short: 'p', Arg: Required, Key: "tmpdir", ArgName: "DIR"},
		{Long: "tmpdir", Arg: Optional, ArgName: "DIR"},
		{Short: 'w', Long: "width", Arg: Required, ArgName: "COLS"},
		{Short: 'F', Key: "classify"},
		{Long: "classify", Arg: Optional, ArgName: "WHEN"},
		{Short: 'T', Arg: Required, ArgName: "TERM"},
		{Digits: true, Key: "context"},
	}}
	want := []string{"-c, --no-create", "-p DIR, --tmpdir[=DIR]", "-w, --width=COLS", "-F, --classify[=WHEN]", "-T TERM", "-NUM"}
	if got := s.Flags(); !slices.Equal(got, want) {
		t.Fatalf("Flags: %q, want %q", got, want)
	}
	keys := []string{"no-create", "tmpdir", "width", "classify", "T", "context"}
	for i, entry := range s.Flags() {
		for _, spelling := range strings.Split(entry, ", ") {
			arg := strings.NewReplacer("[", "", "]", "", "NUM", "5").Replace(spelling)
			if name, _, ok := strings.Cut(arg, " "); ok {
				arg = name + "x" // "-T TERM": the value attached
			}
			// "v" is the value of "-w", whose table entry shows it on --width.
			opts, _, err := s.Parse([]string{arg, "v"})
			if err != nil || len(opts) != 1 || opts[0].Key != keys[i] {
				t.Errorf("%q (from %q) parses to %+v, %v; want key %s", arg, entry, opts, err, keys[i])
			}
		}
	}
}
