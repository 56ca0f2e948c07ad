// Package awk is the runner's awk: a POSIX awk interpreter with the gawk
// extensions agents use, written in Go over the runner's confined files.
package awk
