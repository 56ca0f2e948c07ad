package integration

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"testing"
)

// TestAgentSession is an agent's session of 50 mixed commands (files,
// grep, sed, awk, jq, js-exec) through `wsfs run` on the S3 store; after
// each, the history holds exactly one new revision per command that
// changed something (the cwd included), with the command's text and exit
// code.
func TestAgentSession(t *testing.T) {
	t.Parallel()
	e := NewEnv(t, S3)
	const ws = "agent/session"
	e.MustWsfs("create", ws)
	srv := e.Start("--quiet", "200ms")

	sum := sha256.Sum256([]byte("generated\n"))
	steps := []struct {
		script  string
		stdout  string
		code    int
		changes bool
	}{
		{"mkdir -p project/src project/data", "", 0, true},
		{"cd project", "", 0, true},
		{"pwd", "/workspace/project\n", 0, false},
		{`printf 'id,name,score\n1,alpha,8\n2,beta,9\n3,gamma,7\n' > data/scores.csv`, "", 0, true},
		{"cat data/scores.csv | wc -l", "4\n", 0, false},
		{"grep -c , data/scores.csv", "4\n", 0, false},
		{"grep beta data/scores.csv", "2,beta,9\n", 0, false},
		{"awk -F, 'NR>1 {s+=$3} END {print s}' data/scores.csv", "24\n", 0, false},
		{"sort -t, -k3 -n data/scores.csv | head -n 2", "id,name,score\n3,gamma,7\n", 0, false},
		{"sed -i 's/gamma/GAMMA/' data/scores.csv", "", 0, true},
		{"grep -i gamma data/scores.csv", "3,GAMMA,7\n", 0, false},
		{"cut -d, -f2 data/scores.csv | tail -n +2 | tr a-z A-Z", "ALPHA\nBETA\nGAMMA\n", 0, false},
		{`echo '{"name":"wsfs","tags":["a","b"],"n":3}' > data/meta.json`, "", 0, true},
		{"jq -r '.tags[]' data/meta.json", "a\nb\n", 0, false},
		{"jq '.n += 1' data/meta.json > data/meta2.json && mv data/meta2.json data/meta.json", "", 0, true},
		{"jq -c '[.name, .n, (.tags | length)]' data/meta.json", `["wsfs",4,2]` + "\n", 0, false},
		{`js-exec -c "const fs = require('fs'); console.log(JSON.parse(fs.readFileSync('data/meta.json', 'utf8')).n * 10)"`, "40\n", 0, false},
		{`js-exec -c "require('fs').writeFileSync('src/gen.txt', 'generated\n')"`, "", 0, true},
		{"cat src/gen.txt", "generated\n", 0, false},
		{"ls", "data\nsrc\n", 0, false},
		{"ls data", "meta.json\nscores.csv\n", 0, false},
		{"cp data/scores.csv data/backup.csv", "", 0, true},
		{"diff data/scores.csv data/backup.csv && echo same", "same\n", 0, false},
		{"rm data/backup.csv", "", 0, true},
		{"touch src/a.go src/b.go", "", 0, true},
		{"find . -name '*.go' | sort", "./src/a.go\n./src/b.go\n", 0, false},
		{"echo 'package main' > src/a.go", "", 0, true},
		{"wc -c src/a.go", "13 src/a.go\n", 0, false},
		{`for f in src/*.go; do echo "// $f" >> "$f"; done`, "", 0, true},
		{"tail -n 1 src/b.go", "// src/b.go\n", 0, false},
		{"X=1; echo $X", "1\n", 0, false},
		{"echo ${X:-unset}", "unset\n", 0, false},
		{"cd src", "", 0, true},
		{"pwd", "/workspace/project/src\n", 0, false},
		{"cd ..", "", 0, true},
		{"mv src/gen.txt data/", "", 0, true},
		{"ls data | wc -l", "3\n", 0, false},
		{"grep -rl generated .", "./data/gen.txt\n", 0, false},
		{"sed -n 2p data/scores.csv", "1,alpha,8\n", 0, false},
		{"awk -F, 'NR>1 && $3>7 {print $2}' data/scores.csv", "alpha\nbeta\n", 0, false},
		{"mkdir -p out && awk -F, 'NR>1 {print $2}' data/scores.csv > out/names.txt", "", 0, true},
		{"cat out/names.txt", "alpha\nbeta\nGAMMA\n", 0, false},
		{"sort out/names.txt | uniq | wc -l", "3\n", 0, false},
		{"false", "", 1, false},
		{"echo partial > out/p.txt; false", "", 1, true},
		{"rm -r out", "", 0, true},
		{"ls", "data\nsrc\n", 0, false},
		{"tar czf /tmp/a.tgz data && tar tzf /tmp/a.tgz | sort", "data/\ndata/gen.txt\ndata/meta.json\ndata/scores.csv\n", 0, false},
		{"sha256sum data/gen.txt | cut -c1-16", hex.EncodeToString(sum[:])[:16] + "\n", 0, false},
		{"echo done > DONE", "", 0, true},
	}
	if len(steps) != 50 {
		t.Fatalf("the session has %d commands, want 50", len(steps))
	}
	revisions := 1 // create
	lastChange := "create " + ws
	for i, s := range steps {
		r := e.Run(ws, s.script)
		if r.ExitCode != s.code || r.Stdout != s.stdout {
			t.Errorf("command %d %q: exit %d stdout %q, want exit %d stdout %q\nstderr: %s", i+1, s.script, r.ExitCode, r.Stdout, s.code, s.stdout, r.Stderr)
		}
		if r.Committed != s.changes {
			t.Errorf("command %d %q: committed %v, want %v", i+1, s.script, r.Committed, s.changes)
		}
		if s.changes {
			revisions++
			lastChange = s.script
		}
		revs := e.Log(ws)
		if len(revs) != revisions || revs[0].N != uint64(revisions) || r.Revision != revs[0].N || revs[0].Command != lastChange {
			t.Fatalf("after command %d %q: %d revisions (head %d %q), result revision %d; want %d revisions, head %q", i+1, s.script, len(revs), revs[0].N, revs[0].Command, r.Revision, revisions, lastChange)
		}
		if s.changes && revs[0].ExitCode != s.code {
			t.Errorf("revision %d records exit %d, want %d", revs[0].N, revs[0].ExitCode, s.code)
		}
	}
	want := []string{"project/", "project/DONE", "project/data/", "project/data/gen.txt", "project/data/meta.json", "project/data/scores.csv", "project/src/", "project/src/a.go", "project/src/b.go"}
	if got := treeOf(t, e.WorkspaceDir(ws)); !slices.Equal(got, want) {
		t.Errorf("tree on the mount: %q", got)
	}
	if head := e.Head(ws); head.Cwd != "/project" {
		t.Errorf("head cwd %q", head.Cwd)
	}
	if blobs := e.Store.Blobs(t); !slices.Contains(blobs, hex.EncodeToString(sum[:])) {
		t.Errorf("gen.txt's blob is not in the bucket: %q", blobs)
	}
	srv.Stop()
	if r := e.Wsfs("fsck"); r.Code != 0 {
		t.Errorf("fsck: %v", r)
	}
}
