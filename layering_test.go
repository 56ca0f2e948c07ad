package wsfs_test

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// TestLayering holds the import rules of the design: arrows point down, and
// each third-party library has exactly one wsfs importer.
func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/wsfs/wsfs"
	type pkg struct {
		ImportPath string
		Imports    []string
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 5 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	rel := func(p string) string { return strings.TrimPrefix(strings.TrimPrefix(p, mod), "/") }
	under := func(p, top string) bool { return p == top || strings.HasPrefix(p, top+"/") }

	// allowed reports whether wsfs package from may import wsfs package to.
	allowed := func(from, to string) bool {
		switch {
		case under(to, "internal"):
			return true
		case under(from, "objects/objectstest"), under(from, "objects/s3/s3test"):
			return under(to, "objects")
		case under(from, "objects/storeurl"):
			return under(to, "objects")
		case under(from, "objects/s3"):
			return to == "objects" || under(to, "objects/s3")
		case under(from, "objects"):
			return under(to, "objects") && !under(to, "objects/s3")
		case under(from, "meta/kv"):
			// The engines know records, not meta.
			return under(to, "meta/kv")
		case under(from, "meta"):
			return under(to, "objects") || under(to, "meta")
		case under(from, "runner"):
			return under(to, "runner")
		case under(from, "fusefs"):
			return under(to, "fusefs") || under(to, "meta") || under(to, "objects")
		case under(from, "runsvc/runwire"):
			return false // the standard library only (and internal)
		case under(from, "runsvc"):
			// The run service runs commands (runner) over meta and a
			// mount it knows by an interface, not fusefs.
			return under(to, "meta") || under(to, "objects") || under(to, "runner") || under(to, "runsvc")
		case under(from, "api"):
			// The control socket: meta's history and the run service;
			// the mount is the run service's business.
			return !under(to, "cmd") && !under(to, "integration") && !under(to, "fusefs") && !under(to, "runner")
		case under(from, "cmd"):
			return !under(to, "integration")
		case from == "" || under(from, "integration"):
			return true
		}
		return false
	}
	// onlyImporter names the single wsfs package tree allowed to import a library.
	onlyImporter := map[string]string{
		"go.etcd.io/bbolt":                    "meta/kv/boltkv",
		"go.etcd.io/etcd/client/v3":           "meta/kv/etcdkv",
		"go.etcd.io/etcd/api/v3":              "meta/kv/etcdkv",
		"go.etcd.io/etcd/server/v3":           "meta/kv/etcdkv/etcdtest",
		"github.com/minio/minio-go/v7":        "objects/s3",
		"github.com/hanwen/go-fuse/v2":        "fusefs",
		"mvdan.cc/sh/v3":                      "runner",
		"github.com/fastschema/qjs":           "runner",
		"github.com/landlock-lsm/go-landlock": "runner",
	}
	checkFrontDeps(t, mod)
	for _, p := range pkgs {
		from := rel(p.ImportPath)
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, mod) {
				if to := rel(imp); !allowed(from, to) {
					t.Errorf("%s imports %s: against the layering of DESIGN.md", p.ImportPath, imp)
				}
				continue
			}
			for lib, owner := range onlyImporter {
				if (imp == lib || strings.HasPrefix(imp, lib+"/")) && !under(from, owner) {
					t.Errorf("%s imports %s: only %s may", p.ImportPath, imp, owner)
				}
			}
		}
	}
}

// checkFrontDeps holds the small front (cmd/wsfs) to the standard library,
// the run socket's wire format and the home's paths: it starts for every
// command, so what it links is what every `wsfs run` pays for.
func checkFrontDeps(t *testing.T, mod string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./cmd/wsfs").Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/wsfs: %v", err)
	}
	allowed := map[string]bool{mod + "/cmd/wsfs": true, mod + "/runsvc/runwire": true, mod + "/internal/home": true}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list -deps ./cmd/wsfs listed nothing")
	}
	for _, d := range deps {
		if !allowed[d] {
			t.Errorf("cmd/wsfs depends on %s: the front may import only the standard library, runsvc/runwire and internal/home", d)
		}
	}
}
