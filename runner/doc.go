// Package runner runs an agent's command: a restricted bash (mvdan.cc/sh
// interp) whose commands are Go code confined to the workspace, with
// preflight checks, path confinement, limits and the command's result. It
// imports no other wsfs package but its own subpackages.
package runner
