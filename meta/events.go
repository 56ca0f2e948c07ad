package meta

import "sync"

// EventKind says what changed a workspace.
type EventKind string

// Event kinds.
const (
	EventCreate EventKind = "create" // Create and Fork
	EventCommit EventKind = "commit" // Commit, CommitTree, Restore, WriteFile, ImportTar
	EventUpdate EventKind = "update" // Update (quotas, retention, kind, owner)
	EventDelete EventKind = "delete"
)

// Event tells a subscriber that a workspace changed. Workspace is the
// record after the change (before it, for a delete), so a mount learns the
// new head root, cwd, usage and quotas without another read.
type Event struct {
	Kind      EventKind `json:"kind"`
	Workspace Workspace `json:"workspace"`
}

type subscribers struct {
	mu   sync.Mutex
	next int
	fns  map[int]func(Event)
}

// Subscribe calls fn after every change that this DB commits, in the
// goroutine that made the change, after its transaction; on an engine
// that other servers share (etcd), also after every change they make, in
// the goroutine that watches them (watch.go), and again after this DB's
// own. fn must return quickly; it may call the DB. The returned function
// cancels the subscription.
func (db *DB) Subscribe(fn func(Event)) (cancel func()) {
	db.watchWorkspaces()
	s := &db.subs
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fns == nil {
		s.fns = make(map[int]func(Event))
	}
	id := s.next
	s.next++
	s.fns[id] = fn
	return func() {
		s.mu.Lock()
		delete(s.fns, id)
		s.mu.Unlock()
	}
}

func (db *DB) emit(kind EventKind, w Workspace) {
	s := &db.subs
	s.mu.Lock()
	fns := make([]func(Event), 0, len(s.fns))
	for _, fn := range s.fns {
		fns = append(fns, fn)
	}
	s.mu.Unlock()
	for _, fn := range fns {
		fn(Event{Kind: kind, Workspace: w})
	}
}
