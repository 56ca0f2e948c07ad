package integration

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/internal/testenv"
)

// mountEdit is the command text of a revision the autocommit made from
// edits on the mount.
const mountEdit = "(edits on the mount)"

// TestDeveloperOnMount: a person works on the mount with ordinary tools
// (an editor's save, git, cp -r), and the autocommit turns each burst of
// edits into a revision that `wsfs log` shows. One server for the three.
func TestDeveloperOnMount(t *testing.T) {
	t.Parallel()
	e := NewEnv(t, Local)
	srv := e.Start("--quiet", "300ms")
	t.Run("group", func(t *testing.T) {
		t.Run("editor save", func(t *testing.T) { t.Parallel(); developerEditorSave(t, e) })
		t.Run("git", func(t *testing.T) { t.Parallel(); developerGit(t, e) })
		t.Run("cp -r", func(t *testing.T) { t.Parallel(); developerCopyTree(t, e) })
	})
	srv.Stop()
}

func developerEditorSave(t *testing.T, e *Env) {
	const ws = "dev/editor"
	e.MustWsfs("create", ws)
	wantRun(t, e, ws, "printf 'line one\\nline two\\n' > notes.txt", 0, "")
	dir := e.WorkspaceDir(ws)
	// What vim and most editors do: write the new text to a temp file
	// beside the original, fsync it, keep the mode, rename it over.
	tmp := filepath.Join(dir, ".notes.txt.swp")
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("line one\nline two, edited\n"); err != nil {
		t.Fatal(err)
	}
	mustOK(t, "fsync", f.Sync())
	mustOK(t, "close", f.Close())
	mustOK(t, "chmod", os.Chmod(tmp, 0o644))
	mustOK(t, "rename over the original", os.Rename(tmp, filepath.Join(dir, "notes.txt")))
	head := waitHead(t, e, ws, func(r Revision) bool { return r.Command == mountEdit })
	if head.N != 3 || head.Stats.Files != 1 {
		t.Errorf("the save became revision %d with %d files, want revision 3 with 1", head.N, head.Stats.Files)
	}
	if got, _ := fileOf(t, e, ws, "notes.txt"); got != "line one\nline two, edited\n" {
		t.Errorf("notes.txt at the head: %q", got)
	}
	if _, ok := fileOf(t, e, ws, ".notes.txt.swp"); ok {
		t.Errorf("the editor's temp file was committed")
	}
	// The agent sees the edit, and the diff shows it.
	wantRun(t, e, ws, "tail -n 1 notes.txt", 0, "line two, edited\n")
	if d := e.MustWsfs("diff", ws+"@2", ws+"@3"); !strings.Contains(d.Stdout, "+line two, edited") {
		t.Errorf("wsfs diff @2 @3:\n%s", d.Stdout)
	}
	if l := e.MustWsfs("log", ws); !strings.Contains(l.Stdout, mountEdit) {
		t.Errorf("wsfs log does not show the mount's revision:\n%s", l.Stdout)
	}
}

// git runs git in dir with a private, fixed configuration.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Dev", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_COMMITTER_NAME=Dev", "GIT_COMMITTER_EMAIL=dev@example.com",
		"GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

func developerGit(t *testing.T, e *Env) {
	if _, err := exec.LookPath("git"); err != nil {
		testenv.Missing(t, "git is not installed (make deps installs it)")
	}
	const ws = "dev/git"
	e.MustWsfs("create", ws)
	e.MustWsfs("quota", ws, "set", "entries=2000", "workspace-bytes=64MiB", "file-bytes=16MiB")
	dir := e.WorkspaceDir(ws)
	wantRun(t, e, ws, "mkdir src; printf 'package main\\n' > src/main.go; echo '# demo' > README.md", 0, "")
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "first")
	if got := git(t, dir, "log", "--format=%s"); got != "first\n" {
		t.Errorf("git log: %q", got)
	}
	if got := git(t, dir, "status", "--porcelain"); got != "" {
		t.Errorf("git status after commit: %q", got)
	}
	git(t, dir, "fsck", "--strict")
	// A second commit, then the agent reads the repository's files.
	if err := os.WriteFile(filepath.Join(dir, "src/main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "commit", "-q", "-am", "second")
	commit := git(t, dir, "rev-parse", "HEAD")
	head := waitHead(t, e, ws, func(r Revision) bool {
		return r.Command == mountEdit && mustCat(t, e, ws, ".git/refs/heads/main") == commit
	})
	if got, _ := fileOf(t, e, ws, ".git/HEAD"); got != "ref: refs/heads/main\n" {
		t.Errorf(".git/HEAD at revision %d: %q", head.N, got)
	}
	wantRun(t, e, ws, "cat .git/HEAD; grep -c . src/main.go", 0, "ref: refs/heads/main\n2\n")
	// The workspace restored into a fresh fork is still a sound repository.
	e.MustWsfs("fork", ws, "dev/git-copy")
	copyDir := e.WorkspaceDir("dev/git-copy")
	waitFor(t, "the fork's .git on the mount", func() bool { _, err := os.Stat(filepath.Join(copyDir, ".git")); return err == nil })
	git(t, copyDir, "fsck", "--strict")
	if got := git(t, copyDir, "log", "--format=%s"); got != "second\nfirst\n" {
		t.Errorf("git log in the fork: %q", got)
	}
}

// mustCat is fileOf's content, "" when missing.
func mustCat(t *testing.T, e *Env, ws, path string) string {
	t.Helper()
	s, _ := fileOf(t, e, ws, path)
	return s
}

func developerCopyTree(t *testing.T, e *Env) {
	const ws = "dev/copy"
	e.MustWsfs("create", ws)
	e.MustWsfs("quota", ws, "set", "entries=2000", "workspace-bytes=64MiB", "file-bytes=4MiB")
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	// A source tree: the Go files of this repository's objects package
	// (and its subpackages), gathered in a temp folder.
	src := filepath.Join(t.TempDir(), "objects")
	var files []string
	from := filepath.Join(root, "objects")
	err = filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || !strings.HasSuffix(p, ".go") {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(src, rel)), 0o755); err != nil {
			return err
		}
		files = append(files, rel)
		return os.WriteFile(filepath.Join(src, rel), data, 0o644)
	})
	if err != nil || len(files) < 10 {
		t.Fatalf("gathering a source tree: %d files, %v", len(files), err)
	}
	dst := filepath.Join(e.WorkspaceDir(ws), "objects")
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "cp", "-r", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp -r onto the mount: %v\n%s", err, out)
	}
	head := waitHead(t, e, ws, func(r Revision) bool { return r.Command == mountEdit && r.Stats.Files == int64(len(files)) })
	exported := exportFiles(t, e, ws)
	if len(exported) != len(files) {
		t.Errorf("revision %d holds %d files, want %d", head.N, len(exported), len(files))
	}
	for _, rel := range files {
		want, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(filepath.Join(dst, rel)); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s on the mount differs (%v)", rel, err)
		}
		if got, ok := exported["objects/"+rel]; !ok || got != string(want) {
			t.Errorf("%s at revision %d differs (present: %v)", rel, head.N, ok)
		}
	}
	// The agent sees the same tree.
	r := e.Run(ws, "find objects -type f | wc -l")
	if strings.TrimSpace(r.Stdout) != strconv.Itoa(len(files)) {
		t.Errorf("the agent counts %q files, want %d", r.Stdout, len(files))
	}
	revs := e.Log(ws)
	if !slices.ContainsFunc(revs, func(r Revision) bool { return r.Command == mountEdit }) {
		t.Errorf("no revision from the mount in the log")
	}
}

// exportFiles reads ws's head through `wsfs export`: regular file path ->
// content.
func exportFiles(t *testing.T, e *Env, ws string) map[string]string {
	t.Helper()
	r := e.MustWsfs("export", ws)
	files := map[string]string{}
	tr := tar.NewReader(strings.NewReader(r.Stdout))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatalf("wsfs export %s: %v", ws, err)
		}
		if h.Typeflag == tar.TypeReg {
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			files[strings.TrimPrefix(h.Name, "./")] = string(data)
		}
	}
}
