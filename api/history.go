package api

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
)

// History is the history API that *meta.DB offers in-process and *Client
// over the socket, so a CLI verb is written once and runs either way.
// Over the socket, the Progress callbacks of GCOptions and FsckOptions are
// called as the server streams progress events.
type History interface {
	Create(ctx context.Context, name string, opts meta.CreateOptions) (meta.Workspace, error)
	List(ctx context.Context, prefix string) ([]meta.Workspace, error)
	Get(ctx context.Context, name string) (meta.Workspace, error)
	Delete(ctx context.Context, name string) error
	Update(ctx context.Context, name string, u meta.WorkspaceUpdate) (meta.Workspace, error)
	Log(ctx context.Context, ws string, opts meta.LogOptions) ([]meta.Revision, error)
	Show(ctx context.Context, ref meta.Ref) (meta.Revision, error)
	Diff(ctx context.Context, a, b meta.Ref, opts meta.DiffOptions) ([]meta.FileDiff, error)
	OpenFile(ctx context.Context, ref meta.Ref, p string) (io.ReadCloser, meta.Entry, error)
	Restore(ctx context.Context, ref meta.Ref, info meta.CommitInfo) (meta.Revision, bool, error)
	Fork(ctx context.Context, from meta.Ref, newName string, opts meta.CreateOptions) (meta.Workspace, error)
	WriteFile(ctx context.Context, ws, p string, r io.Reader, opts meta.WriteFileOptions) (meta.Revision, bool, error)
	ExportTar(ctx context.Context, ref meta.Ref, out io.Writer) error
	ImportTar(ctx context.Context, ws string, r io.Reader, opts meta.ImportOptions) (meta.Revision, bool, error)
	GC(ctx context.Context, opts meta.GCOptions) (*meta.GCReport, error)
	Fsck(ctx context.Context, opts meta.FsckOptions) (*meta.FsckReport, error)
	Close() error
}

var (
	_ History = (*meta.DB)(nil)
	_ History = (*Client)(nil)
)

// Request and response bodies of the endpoints.
type (
	nameReq struct {
		Name string `json:"name"`
	}
	createReq struct {
		Name    string             `json:"name"`
		Options meta.CreateOptions `json:"options"`
	}
	listReq struct {
		Prefix string `json:"prefix"`
	}
	updateReq struct {
		Name   string               `json:"name"`
		Update meta.WorkspaceUpdate `json:"update"`
	}
	logReq struct {
		Workspace string          `json:"workspace"`
		Options   meta.LogOptions `json:"options"`
	}
	refReq struct {
		Ref meta.Ref `json:"ref"`
	}
	diffReq struct {
		A       meta.Ref         `json:"a"`
		B       meta.Ref         `json:"b"`
		Options meta.DiffOptions `json:"options"`
	}
	catReq struct {
		Ref  meta.Ref `json:"ref"`
		Path string   `json:"path"`
	}
	restoreReq struct {
		Ref  meta.Ref        `json:"ref"`
		Info meta.CommitInfo `json:"info"`
	}
	forkReq struct {
		From    meta.Ref           `json:"from"`
		Name    string             `json:"name"`
		Options meta.CreateOptions `json:"options"`
	}
	writeReq struct {
		Workspace string                `json:"workspace"`
		Path      string                `json:"path"`
		Options   meta.WriteFileOptions `json:"options"`
	}
	importReq struct {
		Workspace string             `json:"workspace"`
		Options   meta.ImportOptions `json:"options"`
	}
	gcReq struct {
		Grace    int64 `json:"grace_ns"`
		Delete   bool  `json:"delete"`
		Progress bool  `json:"progress"` // stream progress events (see event)
	}
	fsckReq struct {
		Quick    bool `json:"quick"`
		Progress bool `json:"progress"`
	}
	// event is one line of an NDJSON reply (a long call that reports
	// progress): progress lines, then one result or error line. The
	// runner's streamed output is meant to use the same framing.
	event struct {
		Progress *[2]int         `json:"progress,omitempty"` // done, total
		Result   json.RawMessage `json:"result,omitempty"`
		Error    *wireError      `json:"error,omitempty"`
	}
	commitResp struct {
		Revision  wireRev `json:"revision"`
		Committed bool    `json:"committed"`
	}
	empty struct{}
)

// wireRev carries a revision with its manifest digest, which meta.Revision
// leaves out of its JSON (a manifest cannot name itself).
type wireRev struct {
	meta.Revision
	Manifest objects.Digest `json:"manifest"`
}

func toWireRev(r meta.Revision) wireRev { return wireRev{r, r.Manifest} }

func (w wireRev) revision() meta.Revision {
	r := w.Revision
	r.Manifest = w.Manifest
	return r
}

func toWireRevs(rs []meta.Revision) []wireRev {
	out := make([]wireRev, len(rs))
	for i, r := range rs {
		out[i] = toWireRev(r)
	}
	return out
}

// Health is the answer to GET /v1/health: the readiness handshake.
type Health struct {
	Protocol int       `json:"protocol"`
	Version  string    `json:"version"`
	PID      int       `json:"pid"`
	MountDir string    `json:"mount_dir,omitempty"`
	Store    string    `json:"store"`
	Started  time.Time `json:"started"`
	// Shared marks a server that `wsfs run` started (Config.Shared).
	Shared bool `json:"shared,omitempty"`
}

// Headers of the streaming endpoints.
const (
	headerRequest = "Wsfs-Request" // JSON request of an endpoint whose body is content
	headerEntry   = "Wsfs-Entry"   // JSON meta.Entry of a cat
	trailerError  = "Wsfs-Error"   // JSON wireError of a stream that failed after its first byte
)
