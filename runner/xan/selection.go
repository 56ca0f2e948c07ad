package xan

import (
	"fmt"
	"strconv"
	"strings"
)

// selectColumns resolves xan's selection shorthand against headers and
// returns column indices in selection order. named says whether the
// headers are real names (false with -n: only indices work).
func selectColumns(sel string, headers []string, named bool) ([]int, error) {
	items, err := splitSelection(sel)
	if err != nil {
		return nil, err
	}
	var picked, dropped []int
	positive := false
	for _, it := range items {
		neg := strings.HasPrefix(it, "!")
		if neg {
			it = it[1:]
		} else {
			positive = true
		}
		idx, err := resolveItem(it, headers, named)
		if err != nil {
			return nil, err
		}
		if neg {
			dropped = append(dropped, idx...)
		} else {
			picked = append(picked, idx...)
		}
	}
	if !positive {
		for i := range headers {
			picked = append(picked, i)
		}
	}
	if len(dropped) == 0 {
		return picked, nil
	}
	drop := map[int]bool{}
	for _, i := range dropped {
		drop[i] = true
	}
	out := picked[:0:0]
	for _, i := range picked {
		if !drop[i] {
			out = append(out, i)
		}
	}
	return out, nil
}

// splitSelection splits on commas outside double quotes; quoted parts keep
// their quotes so resolveItem can tell "a:b" the name from a:b the range.
func splitSelection(sel string) ([]string, error) {
	if strings.TrimSpace(sel) == "" {
		return nil, usagef("empty column selection")
	}
	var items []string
	var cur strings.Builder
	inQuote := false
	for i := 0; i < len(sel); i++ {
		ch := sel[i]
		switch {
		case ch == '"' && inQuote && i+1 < len(sel) && sel[i+1] == '"':
			cur.WriteString(`""`)
			i++
		case ch == '"':
			inQuote = !inQuote
			cur.WriteByte(ch)
		case ch == ',' && !inQuote:
			items = append(items, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(ch)
		}
	}
	if inQuote {
		return nil, usagef("unbalanced quote in column selection %q", sel)
	}
	items = append(items, cur.String())
	for _, it := range items {
		if it == "" || it == "!" {
			return nil, usagef("empty item in column selection %q", sel)
		}
	}
	return items, nil
}

func resolveItem(it string, headers []string, named bool) ([]int, error) {
	if lo, hi, ok := cutRange(it); ok {
		start, end := 0, len(headers)-1
		var err error
		if lo != "" {
			if start, err = resolveOne(lo, headers, named); err != nil {
				return nil, err
			}
		}
		if hi != "" {
			if end, err = resolveOne(hi, headers, named); err != nil {
				return nil, err
			}
		}
		var out []int
		if len(headers) == 0 {
			return out, nil
		}
		if start <= end {
			for i := start; i <= end; i++ {
				out = append(out, i)
			}
		} else {
			for i := start; i >= end; i-- {
				out = append(out, i)
			}
		}
		return out, nil
	}
	if it == "*" {
		out := make([]int, len(headers))
		for i := range out {
			out[i] = i
		}
		return out, nil
	}
	if !strings.HasPrefix(it, `"`) && strings.Count(it, "*") == 1 && (strings.HasPrefix(it, "*") || strings.HasSuffix(it, "*")) {
		if !named {
			return nil, usagef("cannot select columns by name pattern %q with -n/--no-headers", it)
		}
		var out []int
		for i, h := range headers {
			if (strings.HasSuffix(it, "*") && strings.HasPrefix(h, it[:len(it)-1])) ||
				(strings.HasPrefix(it, "*") && strings.HasSuffix(h, it[1:])) {
				out = append(out, i)
			}
		}
		if len(out) == 0 {
			return nil, notFound(it, headers)
		}
		return out, nil
	}
	i, err := resolveOne(it, headers, named)
	if err != nil {
		return nil, err
	}
	return []int{i}, nil
}

// cutRange splits a:b at a colon outside quotes.
func cutRange(it string) (string, string, bool) {
	inQuote := false
	for i := 0; i < len(it); i++ {
		switch it[i] {
		case '"':
			inQuote = !inQuote
		case ':':
			if !inQuote {
				return it[:i], it[i+1:], true
			}
		}
	}
	return "", "", false
}

// resolveOne resolves a single column: an index (negative from the end),
// "name", name, or name[n] (nth column of that name).
func resolveOne(it string, headers []string, named bool) (int, error) {
	if n, err := strconv.Atoi(it); err == nil {
		i := n
		if n < 0 {
			i = len(headers) + n
		}
		if i < 0 || i >= len(headers) {
			return 0, fmt.Errorf("column index %d is out of range (the input has %d columns)", n, len(headers))
		}
		return i, nil
	}
	if !named {
		return 0, usagef("cannot select column %q by name with -n/--no-headers: use its index", it)
	}
	name, nth := it, 0
	if strings.HasPrefix(it, `"`) && strings.HasSuffix(it, `"`) && len(it) >= 2 {
		name = strings.ReplaceAll(it[1:len(it)-1], `""`, `"`)
	} else if open := strings.LastIndexByte(it, '['); open > 0 && strings.HasSuffix(it, "]") {
		if n, err := strconv.Atoi(it[open+1 : len(it)-1]); err == nil {
			name, nth = it[:open], n
		}
	}
	var matches []int
	for i, h := range headers {
		if h == name {
			matches = append(matches, i)
		}
	}
	if nth < 0 {
		nth += len(matches)
	}
	if nth < 0 || nth >= len(matches) {
		if len(matches) > 0 {
			return 0, fmt.Errorf("column %q has only %d occurrence(s), not %s", name, len(matches), it[len(name):])
		}
		return 0, notFound(name, headers)
	}
	return matches[nth], nil
}

func notFound(name string, headers []string) error {
	return fmt.Errorf("column %q not found (columns: %s)", name, strings.Join(headers, ", "))
}

// pick returns the fields of rec at idx ("" past a short row).
func pick(rec []string, idx []int) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		if i < len(rec) {
			out[k] = rec[i]
		}
	}
	return out
}

// selection resolves an option holding a selection, or every column.
func (c *call) selection(long string, cr *csvReader) ([]int, error) {
	h := cr.Headers()
	v, ok := c.vals[long]
	if !ok {
		all := make([]int, len(h))
		for i := range all {
			all[i] = i
		}
		return all, nil
	}
	return selectColumns(v[len(v)-1], h, cr.HasHeaders())
}
