// Package coreutils holds the runner's file tools, archives and small
// commands (ls cat cp mv rm mkdir rmdir touch ln find stat du tree
// readlink realpath basename dirname chmod tar gzip gunzip zcat zip unzip
// date sleep env printenv which true false timeout time, and in
// reference.go install truncate mktemp expr file hostname whoami clear
// history, and printf echo test [ as GNU runs them as commands), written
// in Go over command.Env: every file access goes through Env.FS, the
// agent's confined view, and sub-commands run through Env.Exec, never as
// host programs. Output and flags follow GNU coreutils (C.UTF-8 locale,
// stdout not a tty); zip and unzip follow Info-ZIP's zip 3.0 and unzip
// 6.0 (their own single-letter options, messages and exit codes) and
// write standard zip archives (archive/zip; deflate or stored, Unix modes
// and times). unzip refuses an archive that would expand past 256 MiB
// before writing anything, stops at a member whose data outgrows its
// declared size, and cuts "../" and leading "/" from member names, as
// Info-ZIP does.
//
// Fixed choices, so output is stable across machines and revisions:
//   - every file shows as owned by "agent agent" (ls -l, stat %U %G, find
//     -printf %u, tar listings); numeric ids are the worker's;
//   - `which NAME` prints /bin/NAME for a runner command (a name, not a
//     folder of the view: the runner has no PATH) and exits 1 for others;
//   - stat's birth time is "-" (%W is 0): the FS does not expose statx;
//   - `time` prints bash's real/user/sys lines; user and sys are the worker
//     process's, which runs one command at a time;
//   - `hostname` is "wsfs" and `whoami` "agent"; `clear` prints the xterm
//     sequence (nothing for TERM=dumb); `history` lists Env.History.
//
// Not supported, with a clear error: find -execdir/-ok, tar -j/-J, env -C,
// date -s. rm -i and cp -i do not prompt (there is no terminal). The times
// of symlinks are not preserved by cp -a, mv across mounts or tar x (the
// FS sets times through links only).
package coreutils

import "github.com/wsfs/wsfs/runner/command"

// Commands lists every command of this package for the runner's table.
func Commands() []command.Spec {
	specs := []command.Spec{
		{Name: "basename", Summary: "strip directory and suffix from file names", Func: runBasename, Flags: basenameSpec.Flags()},
		{Name: "cat", Summary: "concatenate files and print on the standard output", Func: runCat, Flags: catSpec.Flags()},
		{Name: "chmod", Summary: "change file mode bits", Func: runChmod, Flags: chmodSpec.Flags()},
		{Name: "cp", Summary: "copy files and directories", Func: runCp, Flags: cpSpec.Flags()},
		{Name: "mv", Summary: "move (rename) files", Func: runMv, Flags: mvSpec.Flags()},
		{Name: "readlink", Summary: "print resolved symbolic links or canonical file names", Func: runReadlink, Flags: readlinkSpec.Flags()},
		{Name: "realpath", Summary: "print the resolved path", Func: runRealpath, Flags: realpathSpec.Flags()},
		{Name: "stat", Summary: "display file status", Func: runStat, Flags: statSpec.Flags()},
		{Name: "date", Summary: "print or parse a date and time", Func: runDate, Flags: dateSpec.Flags()},
		{Name: "dirname", Summary: "strip the last component from file names", Func: runDirname, Flags: dirnameSpec.Flags()},
		{Name: "env", Summary: "print the environment or run a command in a modified one", Func: runEnv, Flags: envSpec.Flags()},
		{Name: "du", Summary: "estimate file space usage", Func: runDu, Flags: duSpec.Flags()},
		{Name: "find", Summary: "search for files in a directory hierarchy", Func: runFind, Flags: []string{"-name", "-iname", "-path", "-ipath", "-regex", "-type", "-maxdepth", "-mindepth", "-size", "-mtime", "-mmin", "-newer", "-newermt", "-empty", "-perm", "-delete", "-exec {} ;", "-exec {} +", "-print", "-print0", "-printf", "-ls", "-prune", "-quit", "-not", "!", "-a", "-o", "( )", "-L", "-depth"}},
		{Name: "gunzip", Summary: "decompress gzip files", Func: runGunzip, Flags: gzipSpec.Flags()},
		{Name: "gzip", Summary: "compress or decompress files", Func: runGzip, Flags: gzipSpec.Flags()},
		{Name: "tar", Summary: "create, list or extract tar archives (gzip with -z)", Func: runTar, Flags: tarSpec.Flags()},
		{Name: "tree", Summary: "list the contents of directories in a tree", Func: runTree, Flags: treeSpec.Flags()},
		{Name: "zcat", Summary: "print the contents of gzip files", Func: runZcat, Flags: gzipSpec.Flags()},
		{Name: "zip", Summary: "package and compress (archive) files", Func: runZip, Flags: infozipFlags(zipOptions)},
		{Name: "unzip", Summary: "list, test and extract compressed files in a ZIP archive", Func: runUnzip, Flags: infozipFlags(unzipOptions)},
		{Name: "false", Summary: "do nothing, unsuccessfully", Func: runFalse},
		{Name: "ls", Summary: "list directory contents", Func: runLs, Flags: lsSpec.Flags()},
		{Name: "mkdir", Summary: "make directories", Func: runMkdir, Flags: mkdirSpec.Flags()},
		{Name: "printenv", Summary: "print all or part of the environment", Func: runPrintenv, Flags: printenvSpec.Flags()},
		{Name: "rm", Summary: "remove files or directories", Func: runRm, Flags: rmSpec.Flags()},
		{Name: "rmdir", Summary: "remove empty directories", Func: runRmdir, Flags: rmdirSpec.Flags()},
		{Name: "ln", Summary: "make links between files", Func: runLn, Flags: lnSpec.Flags()},
		{Name: "sleep", Summary: "delay for a specified amount of time", Func: runSleep, Flags: sleepSpec.Flags()},
		{Name: "time", Summary: "run a command and report the time it took", Func: runTime, Flags: timeSpec.Flags()},
		{Name: "timeout", Summary: "run a command with a time limit", Func: runTimeout, Flags: timeoutSpec.Flags()},
		{Name: "touch", Summary: "change file timestamps, creating missing files", Func: runTouch, Flags: touchSpec.Flags()},
		{Name: "true", Summary: "do nothing, successfully", Func: runTrue},
		{Name: "which", Summary: "say which names are runner commands", Func: runWhich, Flags: whichSpec.Flags()},
	}
	return append(specs, referenceCommands()...)
}
