package textutils

// filevercmp orders version strings as gnulib's filevercmp (sort -V, ls -v).

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// filePrefixLen is the length of s without its suffix matching
// (\.[A-Za-z~][A-Za-z0-9~]*)*$.
func filePrefixLen(s []byte) int {
	n := len(s)
	prefix := 0
	for i := 0; ; {
		if i == n {
			return prefix
		}
		i++
		prefix = i
		for i+1 < n && s[i] == '.' && (isAlpha(s[i+1]) || s[i+1] == '~') {
			for i += 2; i < n && (isAlpha(s[i]) || isDigit(s[i]) || s[i] == '~'); i++ {
			}
		}
	}
}

func verOrder(s []byte, pos int) int {
	if pos == len(s) {
		return -1
	}
	c := s[pos]
	switch {
	case isDigit(c):
		return 0
	case isAlpha(c):
		return int(c)
	case c == '~':
		return -2
	}
	return int(c) + 256
}

func verrevcmp(a, b []byte) int {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		firstDiff := 0
		for (i < len(a) && !isDigit(a[i])) || (j < len(b) && !isDigit(b[j])) {
			ac, bc := verOrder(a, i), verOrder(b, j)
			if ac != bc {
				return ac - bc
			}
			i++
			j++
		}
		for i < len(a) && a[i] == '0' {
			i++
		}
		for j < len(b) && b[j] == '0' {
			j++
		}
		for i < len(a) && j < len(b) && isDigit(a[i]) && isDigit(b[j]) {
			if firstDiff == 0 {
				firstDiff = int(a[i]) - int(b[j])
			}
			i++
			j++
		}
		if i < len(a) && isDigit(a[i]) {
			return 1
		}
		if j < len(b) && isDigit(b[j]) {
			return -1
		}
		if firstDiff != 0 {
			return firstDiff
		}
	}
	return 0
}

func filevercmp(a, b []byte) int {
	if len(a) == 0 {
		if len(b) == 0 {
			return 0
		}
		return -1
	}
	if len(b) == 0 {
		return 1
	}
	if a[0] == '.' {
		if b[0] != '.' {
			return -1
		}
		adot, bdot := len(a) == 1, len(b) == 1
		if adot {
			if bdot {
				return 0
			}
			return -1
		}
		if bdot {
			return 1
		}
		add := a[1] == '.' && len(a) == 2
		bdd := b[1] == '.' && len(b) == 2
		if add {
			if bdd {
				return 0
			}
			return -1
		}
		if bdd {
			return 1
		}
	} else if b[0] == '.' {
		return 1
	}
	ap, bp := filePrefixLen(a), filePrefixLen(b)
	onePass := ap == len(a) && bp == len(b)
	res := verrevcmp(a[:ap], b[:bp])
	if res != 0 || onePass {
		return sign(res)
	}
	return sign(verrevcmp(a, b))
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}
