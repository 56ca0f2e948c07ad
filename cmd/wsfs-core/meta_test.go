package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/meta/kv/etcdkv/etcdtest"
)

// TestMetaOnEtcd: the verbs on an etcd engine (--meta and WSFS_META), the
// copy to a meta.db and back, recover into an empty prefix, bad URLs, and
// etcd down (a message naming etcd, nothing lost, work resumes).
func TestMetaOnEtcd(t *testing.T) {
	c := newCLI(t)
	cluster := etcdtest.Start(t, 1)
	url := cluster.URL(etcdtest.NewPrefix())
	c.ok("", "create", "acme/a", "--meta", url)
	c.ok("hello\n", "put", "acme/a", "f.txt", "--meta", url)
	t.Setenv("WSFS_META", url)
	c.ok("second\n", "put", "acme/a", "g.txt")
	log := c.ok("", "log", "acme/a")
	if !strings.Contains(log, "put") || strings.Count(log, "\n") < 4 {
		t.Fatalf("log on etcd:\n%s", log)
	}
	if got := c.ok("", "cat", "acme/a", "f.txt"); got != "hello\n" {
		t.Fatalf("cat on etcd: %q", got)
	}
	t.Setenv("WSFS_META", "")

	// etcd → meta.db → another etcd prefix, each checked.
	file := filepath.Join(t.TempDir(), "copy.db")
	out := c.ok("", "meta", "copy", url, "bolt://"+file)
	if !strings.Contains(out, "checked") {
		t.Fatalf("meta copy: %s", out)
	}
	if got := c.ok("", "cat", "acme/a", "g.txt", "--meta", "bolt://"+file); got != "second\n" {
		t.Fatalf("cat on the copy: %q", got)
	}
	url2 := cluster.URL(etcdtest.NewPrefix())
	c.ok("", "meta", "copy", "bolt://"+file, url2)
	if got := c.ok("", "log", "acme/a", "--meta", url2); got != log {
		t.Fatalf("log after bolt → etcd:\n%s\nwant\n%s", got, log)
	}
	c.fails(1, "already holds records", "meta", "copy", "bolt://"+file, url2)
	c.fails(2, "usage", "meta", "copy", url)
	c.fails(2, "unknown scheme", "meta", "copy", "s3://x/y", url2)

	// Recover from the store into an empty prefix.
	url3 := cluster.URL(etcdtest.NewPrefix())
	c.ok("", "recover", "--meta", url3)
	if got := c.ok("", "cat", "acme/a", "g.txt", "--meta", url3); got != "second\n" {
		t.Fatalf("cat after recover into etcd: %q", got)
	}
	c.fails(1, "already holds records", "recover", "--meta", url3)

	// Bad URLs are usage errors that say what to write.
	c.fails(2, "WSFS_ETCD_PASSWORD", "log", "acme/a", "--meta", "etcd://u:pw@127.0.0.1:2379/x")
	c.fails(2, "want bolt:///path/meta.db", "log", "acme/a", "--meta", "mysql://x")

	c.fails(2, "--lease must be", "mount", "--lease", "500ms", t.TempDir())

	// etcd down: a clear error naming etcd; back: everything is there.
	cluster.Stop(0)
	_, errs, code := c.run("lost?\n", "put", "acme/a", "h.txt", "--meta", url+"?timeout=1s&dial-timeout=1s")
	t.Logf("put with etcd down: exit %d: %s", code, errs)
	if code == 0 || !strings.Contains(errs, "etcd at") || !strings.Contains(errs, "unavailable") {
		t.Fatalf("put with etcd down: exit %d: %s", code, errs)
	}
	if err := cluster.Restart(0); err != nil {
		t.Fatal(err)
	}
	if got := c.ok("", "log", "acme/a", "--meta", url); got != log {
		t.Fatalf("log after etcd came back:\n%s\nwant\n%s", got, log)
	}
	c.ok("third\n", "put", "acme/a", "h.txt", "--meta", url)
}
