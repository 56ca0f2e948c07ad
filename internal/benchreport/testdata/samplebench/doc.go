// Package samplebench is a tiny benchmark suite for benchreport's own
// tests: a custom metric, a skip, a failure and a file read relative to
// the package's folder (as go test runs it).
package samplebench
