package meta

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/wsfs/wsfs/objects"
)

// Metadata objects are ordinary blobs in the object store whose content
// starts with a magic line, so that Recover can tell them from file
// contents by reading the first bytes of each blob:
//
//	"wsfs-tree1\n"  a directory (binary encoding, see encodeTree)
//	"wsfs-tree2\n"  a directory with owners, link groups, special files or
//	                extended attributes (format 2, see encodeTree)
//	"wsfs-rev1\n"   a revision manifest (JSON of Revision)
//	"wsfs-ws1\n"    a workspace settings record (JSON of settingsObject)
//	"wsfs-del1\n"   a deletion tombstone (JSON of tombstoneObject)
//	"wsfs-oref1\n"  a kept command output's reference (JSON of outputRef)
//
// A file whose content happens to start with one of these lines is still a
// file: Recover only trusts a candidate that decodes completely, and a
// revision is only rebuilt from a manifest whose workspace has a settings
// record.
const (
	magicTree      = "wsfs-tree1\n"
	magicTree2     = "wsfs-tree2\n"
	magicRevision  = "wsfs-rev1\n"
	magicSettings  = "wsfs-ws1\n"
	magicTombstone = "wsfs-del1\n"
	magicOutputRef = "wsfs-oref1\n"

	// magicMaxLen is how many bytes Recover reads to classify a blob.
	magicMaxLen = 11
)

type objectKind int

const (
	objOther objectKind = iota
	objTree
	objRevision
	objSettings
	objTombstone
	objOutputRef
	objPack // a pack of objects (objects.EncodePack)
	objGone // deleted between listing and reading
)

func classify(head []byte) objectKind {
	switch {
	case bytes.HasPrefix(head, []byte(magicTree)), bytes.HasPrefix(head, []byte(magicTree2)):
		return objTree
	case bytes.HasPrefix(head, []byte(magicRevision)):
		return objRevision
	case bytes.HasPrefix(head, []byte(magicSettings)):
		return objSettings
	case bytes.HasPrefix(head, []byte(magicTombstone)):
		return objTombstone
	case bytes.HasPrefix(head, []byte(magicOutputRef)):
		return objOutputRef
	case objects.IsPackHead(head):
		return objPack
	}
	return objOther
}

// settingsObject is what a workspace's settings record holds in the store.
// Seq grows by one with every change, so Recover takes the newest one.
type settingsObject struct {
	Name       string        `json:"name"`
	ID         string        `json:"id"`
	Seq        uint64        `json:"seq"`
	Kind       WorkspaceKind `json:"kind"`
	Owner      string        `json:"owner,omitempty"`
	Created    string        `json:"created"`
	Updated    string        `json:"updated"`
	Quotas     Quotas        `json:"quotas"`
	Retention  Retention     `json:"retention"`
	ForkedFrom string        `json:"forked_from,omitempty"`
	// Nonce makes every settings object unique (see Revision.Nonce).
	Nonce string `json:"nonce"`
}

// tombstoneObject records that a workspace incarnation was deleted.
type tombstoneObject struct {
	Name    string `json:"name"`
	ID      string `json:"id"`
	Deleted string `json:"deleted"`
	Nonce   string `json:"nonce"`
}

// outputRef ties a kept command output to its workspace incarnation, so
// that Recover can reference the output again. It holds nothing else, so
// its bytes (and digest) follow from the two fields: gc keeps it beside
// the output without storing its digest anywhere.
type outputRef struct {
	ID     string         `json:"id"`
	Output objects.Digest `json:"output"`
}

func encodeOutputRef(id string, output objects.Digest) []byte {
	b, _ := encodeJSONObject(magicOutputRef, outputRef{ID: id, Output: output}) // cannot fail
	return b
}

func encodeJSONObject(magic string, v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append([]byte(magic), body...), nil
}

func decodeJSONObject(magic string, b []byte, v any) error {
	if !bytes.HasPrefix(b, []byte(magic)) {
		return fmt.Errorf("object does not start with %q", magic)
	}
	dec := json.NewDecoder(bytes.NewReader(b[len(magic):]))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
