package metaurl

import (
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	t.Setenv("WSFS_ETCD_USERNAME", "")
	t.Setenv("WSFS_ETCD_PASSWORD", "")
	good := []struct {
		in   string
		kind Kind
		want string // Path or endpoints/prefix
	}{
		{"", Bolt, "/home/x/meta.db"},
		{"/var/lib/wsfs/meta.db", Bolt, "/var/lib/wsfs/meta.db"},
		{"bolt:///var/lib/wsfs/meta.db", Bolt, "/var/lib/wsfs/meta.db"},
		{"etcd://10.0.0.1:2379,10.0.0.2:2379/wsfs/prod", Etcd, "10.0.0.1:2379,10.0.0.2:2379 wsfs/prod"},
		{"etcd://etcd-a/", Etcd, "etcd-a:2379 wsfs"},
		{"etcds://h:2379/p?timeout=2s&max-txn-ops=1000", Etcd, "h:2379 p"},
	}
	for _, c := range good {
		s, err := Parse(c.in, "/home/x")
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		got := s.Path
		if s.Kind == Etcd {
			got = strings.Join(s.Etcd.Endpoints, ",") + " " + s.Etcd.Prefix
		}
		if s.Kind != c.kind || got != c.want {
			t.Errorf("Parse(%q) = %s %q, want %s %q", c.in, s.Kind, got, c.kind, c.want)
		}
	}
	s, _ := Parse("etcds://h:2379/p?timeout=2s&max-txn-ops=1000", "")
	if s.Etcd.TLS == nil || s.Etcd.RequestTimeout != 2*time.Second || s.Etcd.MaxOps != 1000 {
		t.Errorf("etcds options: %+v", s.Etcd)
	}
	bad := map[string]string{
		"relative/meta.db":             "absolute",
		"bolt://host/meta.db":          "absolute",
		"s3://bucket/x":                "unknown scheme",
		"etcd://u:secret@h:2379/p":     "WSFS_ETCD_PASSWORD",
		"etcd:///p":                    "no etcd endpoint",
		"etcd://h:99999/p":             "bad port",
		"etcd://h:2379/p?what=1":       "unknown parameter",
		"etcd://h:2379/p?timeout=soon": "duration",
		"etcd://h:2379/p?cert=/x":      "go together",
		"etcd://h:2379/p?cacert=/none": "cacert",
		"etcd://h:2379/a//b":           "empty part",
	}
	for in, want := range bad {
		_, err := Parse(in, "/home/x")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error saying %q", in, err, want)
		}
	}
	t.Setenv("WSFS_ETCD_USERNAME", "alice")
	t.Setenv("WSFS_ETCD_PASSWORD", "pw")
	s, err := Parse("etcd://h/p", "")
	if err != nil || s.Etcd.Username != "alice" || s.Etcd.Password != "pw" || strings.Contains(s.String(), "pw") {
		t.Errorf("credentials from the environment: %+v %v (URL %s)", s.Etcd, err, s)
	}
}
