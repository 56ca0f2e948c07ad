package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// The Oils project's spec-case format (../shared/conformance/README.md):
//
//	#### NAME
//	script lines
//	## stdout: ONE LINE        ## status: N        ## stdout-json: "JSON"
//	## STDOUT:                 a block ended by "## END" or the next assertion
//	## OK bash stdout: …       a variant accepted for the shells named
//	## N-I bash …              not implemented in bash: the case is not counted
//	## code: SCRIPT            the script given inline

// oilsCase is one case of an Oils spec file.
type oilsCase struct {
	File   string // base name of the spec file
	Index  int    // 1-based position in its file
	Name   string
	Script string
	// Default is the expectation for every shell; Variants are the OK and
	// BUG expectations naming bash, each merged over Default.
	Default  oilsExpect
	Variants []oilsExpect
	// NotImplemented: an N-I qualifier names bash, so the case is not
	// counted.
	NotImplemented bool
}

// oilsExpect is what a case asserts; a nil field asserts nothing.
type oilsExpect struct {
	Stdout, Stderr *string
	Status         *int
}

// ID names a case in the expected-failures manifest.
func (c oilsCase) ID() string { return c.File + " #" + strconv.Itoa(c.Index) }

var oilsAssertion = regexp.MustCompile(`^## (?:(OK|BUG|N-I)(?:-\d+)? (\S+) )?(stdout|stderr|status|stdout-json|stderr-json|STDOUT|STDERR|code):(.*)$`)

// parseOilsFile reads the cases of one spec file.
func parseOilsFile(path string) ([]oilsCase, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	base := filepath.Base(path)
	var cases []oilsCase
	var cur *oilsCase
	var code []string
	// variants by qualifier ("OK", "OK-2", "BUG" …) for the current case
	var variants map[string]*oilsExpect
	var order []string
	finish := func() {
		if cur == nil {
			return
		}
		if cur.Script == "" {
			cur.Script = strings.Join(code, "\n") + "\n"
		}
		for _, q := range order {
			cur.Variants = append(cur.Variants, mergeExpect(cur.Default, *variants[q]))
		}
		cases = append(cases, *cur)
		cur = nil
	}
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if name, ok := strings.CutPrefix(line, "#### "); ok {
			finish()
			cur = &oilsCase{File: base, Index: len(cases) + 1, Name: strings.TrimSpace(name)}
			code = nil
			variants, order = map[string]*oilsExpect{}, nil
			continue
		}
		if cur == nil {
			continue
		}
		m := oilsAssertion.FindStringSubmatch(line)
		if m == nil {
			if !strings.HasPrefix(line, "## ") && line != "##" {
				code = append(code, line)
			}
			continue
		}
		qual, shells, key, value := m[1], m[2], m[3], m[4]
		if key == "STDOUT" || key == "STDERR" {
			var block []string
			for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "## ") && lines[i+1] != "##" {
				i++
				block = append(block, lines[i])
			}
			if i+1 < len(lines) && strings.TrimSpace(lines[i+1]) == "## END" {
				i++
			}
			value = strings.Join(block, "\n")
			if len(block) > 0 {
				value += "\n"
			}
		} else {
			value = strings.TrimPrefix(value, " ")
		}
		if key == "code" {
			cur.Script = value + "\n"
			continue
		}
		target := &cur.Default
		if qual != "" {
			if !namesBash(shells) {
				continue
			}
			if qual == "N-I" {
				cur.NotImplemented = true
				continue
			}
			tag := m[0][3 : strings.Index(m[0][3:], " ")+3]
			if variants[tag] == nil {
				variants[tag] = &oilsExpect{}
				order = append(order, tag)
			}
			target = variants[tag]
		}
		switch key {
		case "stdout", "STDOUT":
			if key == "stdout" {
				value += "\n"
			}
			target.Stdout = &value
		case "stderr", "STDERR":
			if key == "stderr" {
				value += "\n"
			}
			target.Stderr = &value
		case "stdout-json", "stderr-json":
			var s string
			if err := json.Unmarshal([]byte(strings.TrimSpace(value)), &s); err != nil {
				return nil, &os.PathError{Op: "parse", Path: base + ": " + cur.Name, Err: err}
			}
			if key == "stdout-json" {
				target.Stdout = &s
			} else {
				target.Stderr = &s
			}
		case "status":
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil {
				return nil, &os.PathError{Op: "parse", Path: base + ": " + cur.Name, Err: err}
			}
			target.Status = &n
		}
	}
	finish()
	return cases, nil
}

func namesBash(shells string) bool {
	for _, s := range strings.Split(shells, "/") {
		if s == "bash" {
			return true
		}
	}
	return false
}

func mergeExpect(base, over oilsExpect) oilsExpect {
	if over.Stdout != nil {
		base.Stdout = over.Stdout
	}
	if over.Stderr != nil {
		base.Stderr = over.Stderr
	}
	if over.Status != nil {
		base.Status = over.Status
	}
	return base
}

// normalizeOilsOutput drops lines that start with '#', trailing blanks of
// each line and trailing newlines, as the corpus's scoring does.
func normalizeOilsOutput(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		if strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, strings.TrimRight(l, " \t"))
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}

// meets reports whether a run's output and status satisfy e.
func (e oilsExpect) meets(stdout, stderr string, status int) bool {
	if e.Stdout != nil && normalizeOilsOutput(*e.Stdout) != normalizeOilsOutput(stdout) {
		return false
	}
	if e.Stderr != nil && normalizeOilsOutput(*e.Stderr) != normalizeOilsOutput(stderr) {
		return false
	}
	if e.Status != nil && *e.Status != status {
		return false
	}
	return true
}

// passes reports whether a run passes the case: the default expectation
// or one of bash's variants.
func (c oilsCase) passes(stdout, stderr string, status int) bool {
	if c.Default.meets(stdout, stderr, status) {
		return true
	}
	for _, v := range c.Variants {
		if v.meets(stdout, stderr, status) {
			return true
		}
	}
	return false
}
