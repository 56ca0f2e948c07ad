// Package fusefs presents every workspace as a live directory through FUSE
// (go-fuse v2, of which it is the only importer): write spooling, exact
// quota enforcement, read-only history views, and the one place where
// domain errors map to errno.
package fusefs
