package bash

import (
	"fmt"
	"strconv"
	"time"
)

// The variables bash computes when they are read ($RANDOM, $SECONDS,
// $LINENO, $BASHPID, $FUNCNAME …). Assigning some of them changes what
// they give (RANDOM seeds, SECONDS restarts); unsetting one removes the
// magic.

// dynScalar returns the value of a computed scalar.
func (sh *Shell) dynScalar(v *variable) (string, bool) {
	switch v.dyn {
	case dynRandom:
		return strconv.Itoa(sh.rng.IntN(32768)), true
	case dynSRandom:
		return strconv.FormatUint(uint64(sh.rng.Uint32()), 10), true
	case dynSeconds:
		return strconv.Itoa(int(time.Since(sh.seconds).Seconds())), true
	case dynLineno:
		return strconv.Itoa(sh.line), true
	case dynBashpid:
		if sh.subshell == 0 && sh.pid == sh.run.rootPid() {
			return strconv.Itoa(sh.run.rootPid()), true
		}
		return strconv.Itoa(sh.pid), true
	case dynEpochSeconds:
		return strconv.FormatInt(time.Now().Unix(), 10), true
	case dynEpochRealtime:
		t := time.Now()
		return fmt.Sprintf("%d.%06d", t.Unix(), t.Nanosecond()/1000), true
	case dynSubshell:
		return strconv.Itoa(sh.subshell), true
	case dynShellopts:
		return sh.shellopts(), true
	case dynBashopts:
		return sh.bashopts(), true
	case dynBashCommand:
		return sh.curCommand, true
	}
	if vals, ok := sh.dynArray(v); ok {
		if len(vals) == 0 {
			return "", false
		}
		return vals[0], true
	}
	return "", false
}

// dynArray returns the elements of a computed array.
func (sh *Shell) dynArray(v *variable) ([]string, bool) {
	switch v.dyn {
	case dynFuncname:
		return sh.funcnameList(), true
	case dynBashSource:
		return sh.bashSourceList(), true
	case dynBashLineno:
		return sh.bashLinenoList(), true
	case dynDirstack:
		return sh.dirStack(), true
	case dynGroups:
		return []string{"0"}, true
	case dynBashArgv, dynBashArgc:
		return nil, true
	case dynPipestatus:
		out := make([]string, len(sh.pipestatus))
		for i, st := range sh.pipestatus {
			out[i] = strconv.Itoa(st)
		}
		return out, true
	}
	return nil, false
}

// setDyn handles an assignment to a computed variable; false leaves it
// to the ordinary path.
func (sh *Shell) setDyn(v *variable, value string) bool {
	switch v.dyn {
	case dynRandom:
		n, _ := strconv.Atoi(value)
		sh.rngSrc.Seed(uint64(n), uint64(n))
		return true
	case dynSeconds:
		n, _ := strconv.Atoi(value)
		sh.seconds = time.Now().Add(-time.Duration(n) * time.Second)
		return true
	case dynLineno, dynBashpid, dynEpochSeconds, dynEpochRealtime, dynSubshell, dynSRandom, dynBashCommand:
		return true
	}
	// The others stop being computed once assigned.
	v.dyn = dynNone
	return false
}

// callFrames lists the function and source frames, innermost first.
func (sh *Shell) callFrames() []*frame {
	var out []*frame
	for i := len(sh.frames) - 1; i >= 0; i-- {
		if !sh.frames[i].temp {
			out = append(out, sh.frames[i])
		}
	}
	return out
}

func (sh *Shell) funcnameList() []string {
	frames := sh.callFrames()
	hasFunc := false
	var out []string
	for _, f := range frames {
		if f.fn != "source" {
			hasFunc = true
		}
		out = append(out, f.fn)
	}
	if !hasFunc {
		return nil
	}
	if sh.scriptFile != "" {
		out = append(out, "main")
	}
	return out
}

func (sh *Shell) bashSourceList() []string {
	var out []string
	for _, f := range sh.callFrames() {
		file := f.file
		if file == "" {
			file = "environment"
		}
		out = append(out, file)
	}
	if sh.scriptFile != "" {
		out = append(out, sh.scriptFile)
	}
	return out
}

func (sh *Shell) bashLinenoList() []string {
	var out []string
	for _, f := range sh.callFrames() {
		out = append(out, strconv.Itoa(f.callLine))
	}
	if sh.scriptFile != "" {
		out = append(out, "0")
	}
	return out
}
