// Package integration holds the end-to-end tests: they build the wsfs
// binaries and drive them as their users do, on a real FUSE mount, with
// the local store and with a real MinIO.
//
// The harness (harness_test.go) builds cmd/wsfs and cmd/wsfs-core once
// per test binary into one folder (or takes them from $WSFS_IT_BINDIR),
// gives each Env its own WSFS_HOME, mount dir and store, starts `wsfs
// mount` as a subprocess and waits for its readiness line, and stops it
// with SIGTERM: a mount left behind, a descriptor the server did not
// close, or a warm worker outliving its server fails the test. Scenarios:
// the smoke test on both stores, an agent's 50-command session, queueing
// and parallelism, every quota and limit at its edge (through `wsfs run`
// and through the mount), the hostile-script table, a developer's tools
// on the mount, `wsfs run` with no server, and the faults (a killed
// server, a stopped MinIO, a full spool, a corrupted blob).
package integration
