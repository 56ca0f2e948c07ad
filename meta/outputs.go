package meta

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/wsfs/wsfs/meta/kv"

	"github.com/wsfs/wsfs/objects"
)

// MaxOutputsKept is how many command outputs a workspace keeps referenced;
// older ones lose their reference and gc collects their blobs after its
// grace period. A revision's output is not tied to the revision: commands
// that change nothing have outputs too.
const MaxOutputsKept = 1000

// Output is one command's kept output (the blob `wsfs output REF` prints)
// and what `wsfs logs` shows with it.
type Output struct {
	Digest objects.Digest `json:"digest"`
	Time   time.Time      `json:"time"` // when it was recorded (the command's end)
	// The command: its run ID, script, start and exit code (empty in
	// records made before they were kept).
	Run      string    `json:"run,omitempty"`
	Command  string    `json:"command,omitempty"`
	Started  time.Time `json:"started,omitzero"`
	ExitCode int       `json:"exit_code"`
}

// PutOutput stores a command's output, content, for workspace ws and
// returns its digest (the REF of `wsfs output REF`): the output as a blob
// of its own (`wsfs output` reads it from the store alone, without
// meta.db) and, at the same time, its reference object (which ties it to
// ws, so that Recover can reference it again). Call RecordOutput with the
// digest to keep it referenced.
func (db *DB) PutOutput(ctx context.Context, ws string, content []byte) (objects.Digest, error) {
	name, err := ParseWorkspace(ws)
	if err != nil {
		return objects.Digest{}, err
	}
	w, err := db.Get(ctx, name)
	if err != nil {
		return objects.Digest{}, err
	}
	u, d := db.outputUpload(w.ID, content)
	defer u.release()
	if err := u.run(ctx); err != nil {
		return d, fmt.Errorf("meta: store output of %s: %w", name, err)
	}
	if err := u.commit(ctx); err != nil {
		return d, fmt.Errorf("meta: store output of %s: %w", name, err)
	}
	return d, nil
}

// outputUpload is the upload of an output, content, of workspace
// incarnation id: the blob, unpacked, and its reference object.
func (db *DB) outputUpload(id string, content []byte) (*upload, objects.Digest) {
	d := objects.Sum(content)
	ref := encodeOutputRef(id, d)
	u := db.newUpload()
	u.add(pendingObject{d: d, tag: tagOutput, size: int64(len(content)), data: content, what: "the output", single: true})
	u.add(pendingObject{d: objects.Sum(ref), tag: tagOutputRef, size: int64(len(ref)), data: ref, what: "the output's reference"})
	return u, d
}

// StoreOutput is PutOutput and RecordOutput in one: it stores a command's
// output, content, for workspace ws (the blob and its reference object)
// and references it with o's command, run, start and exit code (Digest
// and Time are set here), in one upload and one transaction. It returns
// the output's digest.
func (db *DB) StoreOutput(ctx context.Context, ws string, content []byte, o Output) (objects.Digest, error) {
	name, err := ParseWorkspace(ws)
	if err != nil {
		return objects.Digest{}, err
	}
	w, err := db.Get(ctx, name)
	if err != nil {
		return objects.Digest{}, err
	}
	u, d := db.outputUpload(w.ID, content)
	defer u.release()
	o.Digest, o.Time = d, db.now().UTC()
	rec, err := json.Marshal(o)
	if err != nil {
		return d, fmt.Errorf("meta: store output of %s: %w", name, err)
	}
	if err := u.run(ctx); err != nil {
		return d, fmt.Errorf("meta: store output of %s: %w", name, err)
	}
	err = db.update(ctx, func(tx kv.Txn) error {
		cur, err := getWorkspace(tx, name)
		if err != nil {
			return err
		}
		if cur.ID != w.ID {
			return fmt.Errorf("meta: store output of %s: %w: the workspace was deleted and made again", name, ErrNotFound)
		}
		if err := u.record(tx); err != nil {
			return err
		}
		return putOutputRecord(tx, cur.ID, rec)
	})
	if err != nil {
		u.discardAfter(ctx, err, "a failed output record of "+name)
		return d, fmt.Errorf("meta: store output of %s: %w", name, err)
	}
	return d, nil
}

// RecordOutput references o.Digest, the stored output blob of a command
// on workspace ws, so that gc keeps it and fsck does not call it an
// orphan; Time is set to now. Only the newest MaxOutputsKept outputs of a
// workspace stay referenced. It also stores the output's reference object
// if the store lacks it (an output stored without PutOutput), so that
// Recover finds it again.
func (db *DB) RecordOutput(ctx context.Context, ws string, o Output) error {
	name, err := ParseWorkspace(ws)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	o.Time = db.now().UTC()
	rec, err := json.Marshal(o)
	if err != nil {
		return fmt.Errorf("meta: record output of %s: %w", name, err)
	}
	w, err := db.Get(ctx, name)
	if err != nil {
		return err
	}
	ref := encodeOutputRef(w.ID, o.Digest)
	u := db.newUpload()
	defer u.release()
	u.add(pendingObject{d: objects.Sum(ref), tag: tagOutputRef, size: int64(len(ref)), data: ref, what: "the output's reference"})
	if err := u.run(ctx); err != nil {
		return fmt.Errorf("meta: record output of %s: %w", name, err)
	}
	err = db.update(ctx, func(tx kv.Txn) error {
		w, err := getWorkspace(tx, name)
		if err != nil {
			return err
		}
		if err := u.record(tx); err != nil {
			return err
		}
		return putOutputRecord(tx, w.ID, rec)
	})
	if err != nil {
		u.discardAfter(ctx, err, "a failed output record of "+name)
		return fmt.Errorf("meta: record output of %s: %w", name, err)
	}
	return nil
}

// putOutputRecord adds an output record to workspace incarnation id and
// drops the oldest beyond MaxOutputsKept. Keys are sequence numbers, one
// more than the last.
func putOutputRecord(tx kv.Txn, id string, rec []byte) error {
	var seq uint64
	err := tx.Scan(outBucket(id), kv.ScanOptions{Reverse: true, Limit: 1}, func(k, _ []byte) error {
		if len(k) != 8 {
			return fmt.Errorf("output record key %x of workspace %s: want 8 bytes", k, id)
		}
		seq = binary.BigEndian.Uint64(k)
		return nil
	})
	if err != nil {
		return err
	}
	seq++
	if err := tx.Put(outBucket(id), u64(seq), rec); err != nil {
		return err
	}
	if seq <= MaxOutputsKept {
		return nil
	}
	return tx.DeleteRange(outBucket(id), nil, u64(seq-MaxOutputsKept+1))
}

// Outputs lists the referenced outputs of workspace ws, oldest first.
func (db *DB) Outputs(ctx context.Context, ws string) ([]Output, error) {
	name, err := ParseWorkspace(ws)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []Output
	err = db.view(ctx, func(tx kv.Reader) error {
		w, err := getWorkspace(tx, name)
		if err != nil {
			return err
		}
		return forEachOutput(tx, db.where, w.ID, func(o Output) { out = append(out, o) })
	})
	return out, err
}

// forEachOutput calls fn for each output recorded under a workspace
// incarnation, oldest first.
func forEachOutput(tx kv.Reader, path, id string, fn func(Output)) error {
	return tx.Scan(outBucket(id), kv.ScanOptions{}, func(k, v []byte) error {
		var o Output
		if err := json.Unmarshal(v, &o); err != nil || len(k) != 8 {
			return corruptf(path, "output record %x of workspace %s does not decode: %v", k, id, err)
		}
		fn(o)
		return nil
	})
}

// dropOutputs forgets the outputs of a deleted workspace incarnation.
func dropOutputs(tx kv.Txn, id string) error {
	return tx.DeleteRange(outBucket(id), nil, nil)
}
