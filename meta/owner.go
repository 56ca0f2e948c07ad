package meta

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/wsfs/wsfs/meta/kv"
)

// Several servers on one engine (etcd): each joins with a session (a lease
// kept alive while it runs) and registers under it; a workspace is owned
// by one server at a time, through a record under that server's lease. A
// server commits to a workspace only while it owns it: Commit takes the
// workspace when nobody holds it, fails with ErrNotOwner (naming the
// owner) when another server does, and its transaction reads the owner
// record, so etcd applies the commit only if that record is still this
// server's, under this lease (the fencing token). A server that dies stops
// renewing its lease; when the lease expires its records vanish and
// another server can take its workspaces; a commit it still attempts
// (stalled, not dead) fails. Nothing committed is lost: what an owner had
// not committed when it died (edits on its mount since its last commit)
// is lost with it, and its spool stays on its disk.
//
//	servers/<id>   -> ServerInfo, under the server's lease
//	owners/<name>  -> ownerRecord, under the owner's lease
var (
	bucketServers = kv.B("servers")
	bucketOwners  = kv.B("owners")
)

// ErrNotOwner reports a change refused because another server owns the
// workspace, or because this server's lease on it expired.
var ErrNotOwner = errors.New("the workspace is owned by another server")

// ServerInfo describes a server that joined an engine.
type ServerInfo struct {
	ID      string    `json:"id"`
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	Addr    string    `json:"addr,omitempty"` // where other servers reach it
	Started time.Time `json:"started"`
}

type ownerRecord struct {
	Server string `json:"server"`
	Lease  int64  `json:"lease"`
}

// Member is a server's membership of a shared engine.
type Member struct {
	db      *DB
	info    ServerInfo
	session kv.Session
	mine    []byte // this server's owner record
	mu      sync.Mutex
	owned   map[string]bool
}

// Join registers this server on the engine with a session of ttl (how
// long its workspaces stay its own after it stops answering) and makes
// every later commit through db check ownership. Engines without sessions
// (bbolt: one process) return a nil Member and no error. Leave (or Close)
// ends the membership.
func (db *DB) Join(ctx context.Context, info ServerInfo, ttl time.Duration) (*Member, error) {
	l, ok := db.eng.(kv.Leaser)
	if !ok {
		return nil, nil
	}
	if info.ID == "" {
		info.ID = newID()
	}
	if info.Host == "" {
		info.Host, _ = os.Hostname()
	}
	if info.PID == 0 {
		info.PID = os.Getpid()
	}
	if info.Started.IsZero() {
		info.Started = db.now().UTC()
	}
	s, err := l.Session(ctx, ttl)
	if err != nil {
		return nil, fmt.Errorf("meta: joining %s: %w", db.where, err)
	}
	m := &Member{db: db, info: info, session: s, owned: map[string]bool{}}
	m.mine, _ = json.Marshal(ownerRecord{Server: info.ID, Lease: s.ID()})
	ib, _ := json.Marshal(info)
	if err := s.Put(ctx, bucketServers, []byte(info.ID), ib); err != nil {
		s.Close()
		return nil, fmt.Errorf("meta: registering on %s: %w", db.where, err)
	}
	db.member.Store(m)
	return m, nil
}

// Info returns the server's registration.
func (m *Member) Info() ServerInfo { return m.info }

// Done is closed when the membership ends: Leave, or a lease that expired
// (etcd did not hear from this server for its ttl).
func (m *Member) Done() <-chan struct{} { return m.session.Done() }

// Leave ends the membership: the lease is revoked, so the workspaces it
// owned are free at once.
func (m *Member) Leave() error {
	m.db.member.CompareAndSwap(m, nil)
	return m.session.Close()
}

// Die stops renewing the lease without revoking it, as a crash would (for
// tests): the workspaces stay owned until the lease expires.
func (m *Member) Die() {
	m.db.member.CompareAndSwap(m, nil)
	m.session.Orphan()
}

// Own takes workspace ws for this server when nobody holds it; it fails
// with ErrNotOwner, naming the owner, when another server does.
func (m *Member) Own(ctx context.Context, ws string) error {
	name, err := ParseWorkspace(ws)
	if err != nil {
		return err
	}
	select {
	case <-m.session.Done():
		return fmt.Errorf("meta: %s: %w: this server's lease on %s expired", name, ErrNotOwner, m.db.where)
	default:
	}
	created, holder, err := m.session.Create(ctx, bucketOwners, []byte(name), m.mine)
	if err != nil {
		return fmt.Errorf("meta: taking %s: %w", name, err)
	}
	if created || string(holder) == string(m.mine) {
		m.mu.Lock()
		m.owned[name] = true
		m.mu.Unlock()
		return nil
	}
	return m.db.notOwner(ctx, name, holder)
}

// Release gives workspace ws up, if this server holds it.
func (m *Member) Release(ctx context.Context, ws string) error {
	m.mu.Lock()
	delete(m.owned, ws)
	m.mu.Unlock()
	return m.session.Delete(ctx, bucketOwners, []byte(ws), m.mine)
}

// notOwner is ErrNotOwner naming the server that holds ws.
func (db *DB) notOwner(ctx context.Context, ws string, holder []byte) error {
	var o ownerRecord
	if err := json.Unmarshal(holder, &o); err != nil {
		return fmt.Errorf("meta: %s: %w (its owner record does not decode)", ws, ErrNotOwner)
	}
	who := "server " + o.Server
	if info, ok, err := db.server(ctx, o.Server); err == nil && ok {
		who = fmt.Sprintf("server %s (%s, PID %d", info.ID, info.Host, info.PID)
		if info.Addr != "" {
			who += ", " + info.Addr
		}
		who += ")"
	}
	return fmt.Errorf("meta: %s: %w: %s holds it; send the change there, or wait until that server stops (its lease then expires)", ws, ErrNotOwner, who)
}

func (db *DB) server(ctx context.Context, id string) (ServerInfo, bool, error) {
	var info ServerInfo
	var ok bool
	err := db.view(ctx, func(tx kv.Reader) error {
		v, err := tx.Get(bucketServers, []byte(id))
		if v == nil || err != nil {
			return err
		}
		ok = true
		return json.Unmarshal(v, &info)
	})
	return info, ok, err
}

// Owner returns the server that owns workspace ws (ok false: nobody).
func (db *DB) Owner(ctx context.Context, ws string) (ServerInfo, bool, error) {
	name, err := ParseWorkspace(ws)
	if err != nil {
		return ServerInfo{}, false, err
	}
	var o ownerRecord
	var held bool
	err = db.view(ctx, func(tx kv.Reader) error {
		v, err := tx.Get(bucketOwners, []byte(name))
		if v == nil || err != nil {
			return err
		}
		held = true
		return json.Unmarshal(v, &o)
	})
	if err != nil || !held {
		return ServerInfo{}, false, err
	}
	info, ok, err := db.server(ctx, o.Server)
	if err == nil && !ok {
		info, ok = ServerInfo{ID: o.Server}, true
	}
	return info, ok, err
}

// Servers lists the servers registered on the engine.
func (db *DB) Servers(ctx context.Context) ([]ServerInfo, error) {
	var out []ServerInfo
	err := db.view(ctx, func(tx kv.Reader) error {
		out = out[:0]
		return tx.Scan(bucketServers, kv.ScanOptions{}, func(k, v []byte) error {
			var info ServerInfo
			if err := json.Unmarshal(v, &info); err != nil {
				return fmt.Errorf("server record %q: %v", k, err)
			}
			out = append(out, info)
			return nil
		})
	})
	return out, err
}

// fence makes a commit's transaction depend on this server owning ws: it
// reads the owner record (so the transaction applies only if the record
// is unchanged when it commits) and checks that it is this server's
// under its current lease. Without a membership it checks nothing.
func (db *DB) fence(tx kv.Reader, ws string) error {
	m := db.member.Load()
	if m == nil {
		return nil
	}
	v, err := tx.Get(bucketOwners, []byte(ws))
	if err != nil {
		return err
	}
	if string(v) != string(m.mine) {
		if v == nil {
			return fmt.Errorf("meta: %s: %w: this server's hold on it ended (lease %s expired?); the change was not committed", ws, ErrNotOwner, strconv.FormatInt(m.session.ID(), 16))
		}
		return fmt.Errorf("meta: %s: %w: another server took it; the change was not committed", ws, ErrNotOwner)
	}
	return nil
}

// own takes ws before a commit when this DB has a membership.
func (db *DB) own(ctx context.Context, ws string) error {
	m := db.member.Load()
	if m == nil {
		return nil
	}
	m.mu.Lock()
	held := m.owned[ws]
	m.mu.Unlock()
	if held {
		return nil
	}
	return m.Own(ctx, ws)
}
