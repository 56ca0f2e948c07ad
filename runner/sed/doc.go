// Package sed is the runner's sed: GNU sed 4.9 as agents use it, in Go,
// over a command.Env (standard streams and confined file access).
package sed
