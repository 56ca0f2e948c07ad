package linediff

// The line matching: a port of GNU diffutils' analyze.c
// (discard_confusing_lines, the O(ND) compareseq of diffseq.h with its
// too-expensive cutoff, shift_boundaries and build_script), so that among
// equally short edit scripts the same one is chosen and hunks come out
// as GNU prints them.

type diffFile struct {
	equivs      []int  // equivalence class of each line (1-based classes)
	changed     []bool // len+2, index shifted by one: changed[i+1] is line i
	undiscarded []int
	realIndex   []int
}

func (f *diffFile) setChanged(i int, v bool) {
	f.changed[i+1] = v
}

type diffCtx struct {
	xv, yv       []int
	fd, bd       []int // indexed by diagonal + offset
	off          int
	tooExpensive int
	files        *[2]diffFile
	cancelled    func() bool
}

// compare computes the changes between two files given their lines'
// equivalence classes (1 to classes); nil when cancelled says stop.
func compare(eq0, eq1 []int, classes int, minimal bool, cancelled func() bool) []Change {
	var files [2]diffFile
	for f, eq := range [][]int{eq0, eq1} {
		files[f].equivs = eq
		files[f].changed = make([]bool, len(eq)+2)
	}
	discardConfusingLines(&files, classes, minimal)
	c := &diffCtx{xv: files[0].undiscarded, yv: files[1].undiscarded, files: &files, cancelled: cancelled}
	diags := len(c.xv) + len(c.yv) + 3
	c.off = len(c.yv) + 1
	c.fd = make([]int, diags)
	c.bd = make([]int, diags)
	te := 1
	for d := diags; d != 0; d >>= 2 {
		te <<= 1
	}
	c.tooExpensive = max(4096, te)
	if minimal {
		c.tooExpensive = 1 << 62
	}
	c.compareseq(0, len(c.xv), 0, len(c.yv), minimal)
	if cancelled() {
		return nil
	}
	shiftBoundaries(&files)
	return buildScript(&files)
}

func discardConfusingLines(files *[2]diffFile, classes int, minimal bool) {
	var counts [2][]int
	for f := 0; f < 2; f++ {
		counts[f] = make([]int, classes+1)
		for _, e := range files[f].equivs {
			counts[f][e]++
		}
	}
	var discarded [2][]byte
	for f := 0; f < 2; f++ {
		end := len(files[f].equivs)
		discards := make([]byte, end)
		other := counts[1-f]
		many := 5
		for tem := end / 64; ; {
			tem >>= 2
			if tem <= 0 {
				break
			}
			many *= 2
		}
		for i, e := range files[f].equivs {
			if e == 0 {
				continue
			}
			n := other[e]
			if n == 0 {
				discards[i] = 1
			} else if n > many {
				discards[i] = 2
			}
		}
		discarded[f] = discards
	}
	for f := 0; f < 2; f++ {
		discards := discarded[f]
		end := len(discards)
		for i := 0; i < end; i++ {
			if discards[i] == 2 {
				discards[i] = 0
				continue
			}
			if discards[i] == 0 {
				continue
			}
			j := i
			provisional := 0
			for ; j < end; j++ {
				if discards[j] == 0 {
					break
				}
				if discards[j] == 2 {
					provisional++
				}
			}
			for j > i && discards[j-1] == 2 {
				j--
				discards[j] = 0
				provisional--
			}
			length := j - i
			if provisional*4 > length {
				for j > i {
					j--
					if discards[j] == 2 {
						discards[j] = 0
					}
				}
				continue
			}
			minimum := 1
			for tem := length >> 2; ; {
				tem >>= 2
				if tem <= 0 {
					break
				}
				minimum <<= 1
			}
			minimum++
			consec := 0
			for j = 0; j < length; j++ {
				if discards[i+j] != 2 {
					consec = 0
				} else {
					consec++
					if minimum == consec {
						j -= consec
					} else if minimum < consec {
						discards[i+j] = 0
					}
				}
			}
			consec = 0
			for j = 0; j < length; j++ {
				if j >= 8 && discards[i+j] == 1 {
					break
				}
				if discards[i+j] == 2 {
					consec = 0
					discards[i+j] = 0
				} else if discards[i+j] == 0 {
					consec = 0
				} else {
					consec++
				}
				if consec == 3 {
					break
				}
			}
			i += length - 1
			consec = 0
			for j = 0; j < length; j++ {
				if j >= 8 && discards[i-j] == 1 {
					break
				}
				if discards[i-j] == 2 {
					consec = 0
					discards[i-j] = 0
				} else if discards[i-j] == 0 {
					consec = 0
				} else {
					consec++
				}
				if consec == 3 {
					break
				}
			}
		}
	}
	for f := 0; f < 2; f++ {
		for i, e := range files[f].equivs {
			if minimal || discarded[f][i] == 0 {
				files[f].undiscarded = append(files[f].undiscarded, e)
				files[f].realIndex = append(files[f].realIndex, i)
			} else {
				files[f].setChanged(i, true)
			}
		}
	}
}

func (c *diffCtx) compareseq(xoff, xlim, yoff, ylim int, minimal bool) {
	for xoff < xlim && yoff < ylim && c.xv[xoff] == c.yv[yoff] {
		xoff++
		yoff++
	}
	for xoff < xlim && yoff < ylim && c.xv[xlim-1] == c.yv[ylim-1] {
		xlim--
		ylim--
	}
	switch {
	case xoff == xlim:
		for ; yoff < ylim; yoff++ {
			c.files[1].setChanged(c.files[1].realIndex[yoff], true)
		}
	case yoff == ylim:
		for ; xoff < xlim; xoff++ {
			c.files[0].setChanged(c.files[0].realIndex[xoff], true)
		}
	default:
		if c.cancelled() {
			return
		}
		xmid, ymid, loMin, hiMin := c.diag(xoff, xlim, yoff, ylim, minimal)
		c.compareseq(xoff, xmid, yoff, ymid, loMin)
		c.compareseq(xmid, xlim, ymid, ylim, hiMin)
	}
}

func (c *diffCtx) diag(xoff, xlim, yoff, ylim int, minimal bool) (int, int, bool, bool) {
	o := c.off
	fd, bd := c.fd, c.bd
	xv, yv := c.xv, c.yv
	dmin, dmax := xoff-ylim, xlim-yoff
	fmid, bmid := xoff-yoff, xlim-ylim
	fmin, fmax, bmin, bmax := fmid, fmid, bmid, bmid
	odd := (fmid-bmid)&1 != 0
	fd[fmid+o] = xoff
	bd[bmid+o] = xlim
	const maxInt = int(^uint(0) >> 1)
	for cost := 1; ; cost++ {
		if fmin > dmin {
			fmin--
			fd[fmin-1+o] = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			fd[fmax+1+o] = -1
		} else {
			fmax--
		}
		for d := fmax; d >= fmin; d -= 2 {
			tlo, thi := fd[d-1+o], fd[d+1+o]
			x0 := tlo + 1
			if tlo < thi {
				x0 = thi
			}
			x, y := x0, x0-d
			for x < xlim && y < ylim && xv[x] == yv[y] {
				x++
				y++
			}
			fd[d+o] = x
			if odd && bmin <= d && d <= bmax && bd[d+o] <= x {
				return x, y, true, true
			}
		}
		if bmin > dmin {
			bmin--
			bd[bmin-1+o] = maxInt
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			bd[bmax+1+o] = maxInt
		} else {
			bmax--
		}
		for d := bmax; d >= bmin; d -= 2 {
			tlo, thi := bd[d-1+o], bd[d+1+o]
			x0 := thi - 1
			if tlo < thi {
				x0 = tlo
			}
			x, y := x0, x0-d
			for xoff < x && yoff < y && xv[x-1] == yv[y-1] {
				x--
				y--
			}
			bd[d+o] = x
			if !odd && fmin <= d && d <= fmax && x <= fd[d+o] {
				return x, y, true, true
			}
		}
		if minimal || cost < c.tooExpensive {
			continue
		}
		fxybest, fxbest := -1, 0
		for d := fmax; d >= fmin; d -= 2 {
			x := min(fd[d+o], xlim)
			y := x - d
			if ylim < y {
				x, y = ylim+d, ylim
			}
			if fxybest < x+y {
				fxybest, fxbest = x+y, x
			}
		}
		bxybest, bxbest := maxInt, 0
		for d := bmax; d >= bmin; d -= 2 {
			x := max(xoff, bd[d+o])
			y := x - d
			if y < yoff {
				x, y = yoff+d, yoff
			}
			if x+y < bxybest {
				bxybest, bxbest = x+y, x
			}
		}
		if (xlim+ylim)-bxybest < fxybest-(xoff+yoff) {
			return fxbest, fxybest - fxbest, true, false
		}
		return bxbest, bxybest - bxbest, false, true
	}
}

func shiftBoundaries(files *[2]diffFile) {
	for f := 0; f < 2; f++ {
		ch := func(i int) bool { return files[f].changed[i+1] }
		set := func(i int, v bool) { files[f].changed[i+1] = v }
		other := func(j int) bool { return files[1-f].changed[j+1] }
		equivs := files[f].equivs
		iEnd := len(equivs)
		i, j := 0, 0
		for {
			for i < iEnd && !ch(i) {
				for other(j) {
					j++
				}
				j++
				i++
			}
			if i == iEnd {
				break
			}
			start := i
			for i++; ch(i); i++ {
			}
			for other(j) {
				j++
			}
			var corresponding int
			for {
				runLength := i - start
				for start > 0 && equivs[start-1] == equivs[i-1] {
					start--
					set(start, true)
					i--
					set(i, false)
					for ch(start - 1) {
						start--
					}
					for {
						j--
						if !other(j) {
							break
						}
					}
				}
				corresponding = iEnd
				if other(j - 1) {
					corresponding = i
				}
				for i != iEnd && equivs[start] == equivs[i] {
					set(start, false)
					start++
					set(i, true)
					i++
					for ch(i) {
						i++
					}
					for {
						j++
						if !other(j) {
							break
						}
						corresponding = i
					}
				}
				if runLength == i-start {
					break
				}
			}
			for corresponding < i {
				start--
				set(start, true)
				i--
				set(i, false)
				for {
					j--
					if !other(j) {
						break
					}
				}
			}
		}
	}
}

func buildScript(files *[2]diffFile) []Change {
	var rev []Change
	c0, c1 := files[0].changed, files[1].changed
	i0, i1 := len(files[0].equivs), len(files[1].equivs)
	for i0 >= 0 && i1 >= 0 {
		if c0[i0] || c1[i1] { // changed[i-1] with the one-off shift
			line0, line1 := i0, i1
			for c0[i0] {
				i0--
			}
			for c1[i1] {
				i1--
			}
			rev = append(rev, Change{A: i0, B: i1, Del: line0 - i0, Ins: line1 - i1})
		}
		i0--
		i1--
	}
	out := make([]Change, len(rev))
	for k := range rev {
		out[k] = rev[len(rev)-1-k]
	}
	return out
}
