package awk

import (
	"fmt"

	"github.com/wsfs/wsfs/runner/internal/gnuregex"
)

// compileERE compiles an awk regular expression: gawk's dialect of
// gnuregex (POSIX extended with gawk's escapes and GNU's \y \B \< \> \s
// \S \w \W \` \'), matched leftmost-longest.
func compileERE(src string) (*gnuregex.Regexp, error) {
	re, err := gnuregex.Compile(src, gnuregex.Options{Syntax: gnuregex.AWK})
	if err != nil {
		return nil, fmt.Errorf("invalid regexp: %s: /%s/", err.Error(), src)
	}
	return re, nil
}

// regexCache keeps compiled dynamic regexes.
type regexCache struct {
	m map[string]*gnuregex.Regexp
}

func (c *regexCache) get(src string) (*gnuregex.Regexp, error) {
	if re, ok := c.m[src]; ok {
		return re, nil
	}
	re, err := compileERE(src)
	if err != nil {
		return nil, err
	}
	if c.m == nil || len(c.m) > 500 {
		c.m = map[string]*gnuregex.Regexp{}
	}
	c.m[src] = re
	return re, nil
}

// matches reports whether s holds a match of re.
func (in *interp) matches(re *gnuregex.Regexp, s string) bool {
	ok, err := re.MatchString(in.ctx, s)
	if err != nil {
		in.fatalf("%v", err)
	}
	return ok
}

// find returns up to n (all when n < 0) successive matches of re in s,
// with their submatches when captures is set.
func (in *interp) find(re *gnuregex.Regexp, s string, n int, captures bool) [][]int {
	ms, err := re.FindAllString(in.ctx, s, n, captures)
	if err != nil {
		in.fatalf("%v", err)
	}
	return ms
}
