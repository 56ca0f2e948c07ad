package fusefs

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/objects/s3"
	"github.com/wsfs/wsfs/objects/s3/s3test"
)

// benchTargets mounts wsfs (local folder store) and go-fuse's loopback,
// both over one tmpfs and with the same kernel caching, so that the two
// file systems are measured in the same run on the same storage.
func benchTargets(b *testing.B) map[string]string {
	b.Helper()
	requireFUSE(b)
	base := b.TempDir()
	if err := syscall.Mount("tmpfs", base, "tmpfs", 0, "size=4g"); err != nil {
		b.Fatalf("tmpfs: %v", err)
	}
	b.Cleanup(func() { syscall.Unmount(base, syscall.MNT_DETACH) })
	ctx := context.Background()

	// wsfs
	st, err := objects.OpenDir(filepath.Join(base, "objects"))
	if err != nil {
		b.Fatal(err)
	}
	db, err := meta.Open(ctx, filepath.Join(base, "meta.db"), st, meta.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.Create(ctx, "bench/a", meta.CreateOptions{Quotas: bigQuotas()}); err != nil {
		b.Fatal(err)
	}
	wsMnt := filepath.Join(base, "wsfs")
	os.Mkdir(wsMnt, 0o755)
	trackMount(wsMnt)
	fsys, err := Mount(ctx, wsMnt, Options{DB: db, SpoolDir: filepath.Join(base, "spool"), QuietPeriod: -1, Workspace: "bench/a",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { fsys.Unmount(ctx); db.Close() })

	// loopback
	data := filepath.Join(base, "loopdata")
	lbMnt := filepath.Join(base, "loopback")
	os.Mkdir(data, 0o755)
	os.Mkdir(lbMnt, 0o755)
	root, err := gofs.NewLoopbackRoot(data)
	if err != nil {
		b.Fatal(err)
	}
	sec := time.Second
	server, err := gofs.Mount(lbMnt, root, &gofs.Options{EntryTimeout: &sec, AttrTimeout: &sec, NegativeTimeout: &sec,
		MountOptions: fuse.MountOptions{DirectMount: true, FsName: "loopback", Name: "loopback"}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { server.Unmount() })
	return map[string]string{"wsfs": wsMnt, "loopback": lbMnt, "tmpfs": data}
}

var benchOrder = []string{"tmpfs", "loopback", "wsfs"}

func BenchmarkFS(b *testing.B) {
	targets := benchTargets(b)
	payload := bytes.Repeat([]byte("x"), 4096)
	big := bytes.Repeat([]byte("0123456789abcdef"), 256<<10/16)
	tree := makeTar(b, 1500)
	for _, name := range benchOrder {
		dir := targets[name]
		b.Run("create4k/"+name, func(b *testing.B) {
			d := filepath.Join(dir, "create")
			os.Mkdir(d, 0o755)
			for i := 0; i < b.N; i++ {
				if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%d", i)), payload, 0o644); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("stat/"+name, func(b *testing.B) {
			p := filepath.Join(dir, "stat-me")
			os.WriteFile(p, payload, 0o644)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := os.Lstat(p); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("readdir1000/"+name, func(b *testing.B) {
			d := filepath.Join(dir, "readdir")
			os.Mkdir(d, 0o755)
			for i := 0; i < 1000; i++ {
				os.WriteFile(filepath.Join(d, fmt.Sprintf("e%04d", i)), nil, 0o644)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ents, err := os.ReadDir(d)
				if err != nil || len(ents) != 1000 {
					b.Fatalf("%d entries, %v", len(ents), err)
				}
			}
		})
		b.Run("untar1500/"+name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				untar(b, tree, filepath.Join(dir, fmt.Sprintf("untar%d", i)))
			}
		})
		b.Run("rw256k/"+name, func(b *testing.B) {
			p := filepath.Join(dir, "rw256k")
			b.SetBytes(int64(2 * len(big)))
			for i := 0; i < b.N; i++ {
				if err := os.WriteFile(p, big, 0o644); err != nil {
					b.Fatal(err)
				}
				got, err := os.ReadFile(p)
				if err != nil || len(got) != len(big) {
					b.Fatal(err)
				}
			}
		})
	}
}

// makeTar builds a tree of n small files in 30 folders.
func makeTar(b *testing.B, n int) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for d := 0; d < 30; d++ {
		tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("src/pkg%02d/", d), Typeflag: tar.TypeDir, Mode: 0o755})
	}
	for i := 0; i < n; i++ {
		body := []byte(fmt.Sprintf("package pkg\n\n// file %d\nfunc F%d() int { return %d }\n", i, i, i))
		tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("src/pkg%02d/f%04d.go", i%30, i), Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(body))})
		tw.Write(body)
	}
	tw.Close()
	return buf.Bytes()
}

func untar(b *testing.B, data []byte, dest string) {
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			b.Fatal(err)
		}
		p := filepath.Join(dest, h.Name)
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				b.Fatal(err)
			}
			continue
		}
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(f, tr); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkCommit measures what a runner command pays at its end: write one
// 4 KiB file on the mount, then snapshot the workspace, with the local
// folder store and with MinIO (the blob and two trees go to the store).
func BenchmarkCommit(b *testing.B) {
	requireFUSE(b)
	ctx := context.Background()
	srv := s3test.Start(b)
	minio, err := s3.New(ctx, s3.Config{Endpoint: srv.Endpoint, Secure: srv.Secure, Bucket: srv.Bucket(b), Prefix: "bench",
		AccessKey: srv.AccessKey, SecretKey: srv.SecretKey, Region: srv.Region})
	if err != nil {
		b.Fatal(err)
	}
	local, err := objects.OpenDir(filepath.Join(b.TempDir(), "objects"))
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		store objects.Store
	}{{"local", local}, {"minio", minio}} {
		b.Run(tc.name, func(b *testing.B) {
			fsys, mnt := mountOne(b, tc.store, meta.Options{}, "bench/c")
			head := meta.RevNum(1)
			payload := make([]byte, 4096)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				copy(payload, fmt.Sprintf("version %d", i))
				if err := os.WriteFile(filepath.Join(mnt, "report.txt"), payload, 0o644); err != nil {
					b.Fatal(err)
				}
				rev, _, err := fsys.Snapshot(ctx, "bench/c", head, "", meta.CommitInfo{Command: "bench"})
				if err != nil {
					b.Fatal(err)
				}
				head = rev.N
			}
		})
	}
}

// BenchmarkCommittedFile measures the files a command left behind: read a
// 256 KiB file written on the mount and committed since, and rewrite a
// committed 4 KiB file then commit it, on the local folder store.
func BenchmarkCommittedFile(b *testing.B) {
	requireFUSE(b)
	ctx := context.Background()
	st, err := objects.OpenDir(filepath.Join(b.TempDir(), "objects"))
	if err != nil {
		b.Fatal(err)
	}
	fsys, mnt := mountOne(b, st, meta.Options{NoSync: true}, "bench/r")
	head := meta.RevNum(1)
	commit := func(b *testing.B) {
		rev, _, err := fsys.Snapshot(ctx, "bench/r", head, "", meta.CommitInfo{Command: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		head = rev.N
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), 256<<10/16)
	b.Run("read256k", func(b *testing.B) {
		p := filepath.Join(mnt, "big")
		if err := os.WriteFile(p, big, 0o644); err != nil {
			b.Fatal(err)
		}
		commit(b)
		b.SetBytes(int64(len(big)))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			got, err := os.ReadFile(p)
			if err != nil || len(got) != len(big) {
				b.Fatal(err)
			}
		}
	})
	b.Run("rewrite4k+commit", func(b *testing.B) {
		p := filepath.Join(mnt, "small")
		payload := make([]byte, 4096)
		for i := 0; i < b.N; i++ {
			copy(payload, fmt.Sprintf("version %d", i))
			if err := os.WriteFile(p, payload, 0o644); err != nil {
				b.Fatal(err)
			}
			commit(b)
		}
	})
}

// mountOne mounts a new workspace with big quotas and no autocommit over
// store at a mount point of its own, until the benchmark ends.
func mountOne(b *testing.B, store objects.Store, dbOpts meta.Options, name string) (*FS, string) {
	b.Helper()
	ctx := context.Background()
	home := b.TempDir()
	db, err := meta.Open(ctx, filepath.Join(home, "meta.db"), store, dbOpts)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.Create(ctx, name, meta.CreateOptions{Quotas: bigQuotas()}); err != nil {
		db.Close()
		b.Fatal(err)
	}
	mnt := filepath.Join(home, "mnt")
	os.Mkdir(mnt, 0o755)
	trackMount(mnt)
	fsys, err := Mount(ctx, mnt, Options{DB: db, SpoolDir: filepath.Join(home, "spool"), QuietPeriod: -1, Workspace: name,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		db.Close()
		b.Fatal(err)
	}
	b.Cleanup(func() {
		fsys.Unmount(ctx)
		db.Close()
	})
	return fsys, mnt
}
