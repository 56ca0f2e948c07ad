// Package getopt is the one command-line parser of the runner's GNU-style
// commands (coreutils, the text tools, grep, sed, awk, diff …). It reads
// arguments as glibc's getopt_long does and says what is wrong in
// glibc's words, and the same declaration gives the command's entry in
// the command table (`help NAME`, `wsfs commands --json`), so the flags
// a command documents are exactly the flags it parses.
//
// What getopt_long does, and so what Parse does:
//   - short options bundle ("-rn"); a short option's value may be attached
//     ("-n5") or be the next argument ("-n 5"), even one starting with "-";
//     an optional value is attached only ("-i.bak");
//   - long options take "--name=value" or "--name value" (an optional
//     value only the first form), and may be abbreviated to any prefix
//     that names one option (prefixes shared by aliases of the same option
//     are not ambiguous);
//   - options and operands mix (the options are taken out wherever they
//     are) unless Spec.InOrder, when the first operand ends the options;
//   - "--" ends the options; "-" is an operand;
//   - --help and --version are added to every command that declares
//     neither: Run prints the help (generated from the declaration) or the
//     version line and stops with status 0.
//
// The messages are glibc's: "unrecognized option '--frob'", "invalid
// option -- 'k'", "option requires an argument -- 'n'", "option '--size'
// requires an argument", "option '--no-create' doesn't allow an argument"
// and "option '--i' is ambiguous; possibilities: '--include' '--ignore-case'".
//
// Declaring a command's flags, parsing them and listing them in the
// command table:
//
//	var truncateFlags = getopt.Spec{
//		Usage: "OPTION... FILE...",
//		Options: []getopt.Option{
//			{Short: 'c', Long: "no-create"},
//			{Short: 'r', Long: "reference", Arg: getopt.Required, ArgName: "RFILE"},
//			{Short: 's', Long: "size", Arg: getopt.Required, ArgName: "SIZE"},
//		},
//	}
//
//	func runTruncate(ctx context.Context, env *command.Env) int {
//		opts, files, status, ok := truncateFlags.Run(env)
//		if !ok {
//			return status // a usage error was printed, or --help/--version
//		}
//		for _, o := range opts {
//			switch o.Key { // the long name, or the letter of a short-only option
//			case "no-create":
//				…
//			case "size":
//				size = o.Value
//			}
//		}
//		…
//	}
//
//	command.Spec{Name: "truncate", Summary: "…", Func: runTruncate, Flags: truncateFlags.Flags()}
//
// Flags lists "-c, --no-create", "-r, --reference=RFILE",
// "-s, --size=SIZE": one entry per option (aliases that share a Key are
// one entry: "-E, -r, --regexp-extended"), in declaration order, the way
// GNU's --help writes them.
package getopt
