// Package integration holds the end-to-end tests: they build the wsfs
// binary and drive it as its users do, on a real FUSE mount, with the local
// store and with a real MinIO.
package integration
