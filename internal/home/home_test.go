package home

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestSocketPaths(t *testing.T) {
	short := Of("/tmp/h")
	if got := short.ControlSocket(); got != "/tmp/h/wsfs.sock" {
		t.Errorf("control socket %s", got)
	}
	if got := short.RunSocket(); got != "/tmp/h/run.sock" {
		t.Errorf("run socket %s", got)
	}
	long := Of("/tmp/" + strings.Repeat("x", 120))
	c, r := long.ControlSocket(), long.RunSocket()
	if len(c) > maxSocketPath || len(r) > maxSocketPath || c == r || filepath.Dir(c) != filepath.Dir(r) {
		t.Errorf("long home: control %s, run %s", c, r)
	}
	if other := Of("/tmp/" + strings.Repeat("y", 120)); other.ControlSocket() == c {
		t.Errorf("two homes share %s", c)
	}
}

func TestDir(t *testing.T) {
	t.Setenv(EnvHome, "rel/home")
	d, err := Dir("")
	if err != nil || !filepath.IsAbs(d) || !strings.HasSuffix(d, "rel/home") {
		t.Errorf("Dir from %s: %s %v", EnvHome, d, err)
	}
	if d, _ := Dir("/flag/home"); d != "/flag/home" {
		t.Errorf("--home: %s", d)
	}
}
