// Package strftime formats times as C's strftime does in the C locale,
// with GNU's extensions (the flags - _ 0 ^ #, a field width, %N, %:z):
// one implementation for date, find -printf, the shell's printf %(…)T
// and awk's strftime.
package strftime

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	// Zones by name (TZ=Asia/Tokyo) must work in a confined worker, which
	// reads no zoneinfo of the host.
	_ "time/tzdata"
)

var (
	shortDays   = []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	shortMonths = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
)

// Format formats t as GNU date does in the C locale, with the flags
// - _ 0 ^ # and a field width.
func Format(format string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		ch := format[i]
		if ch != '%' || i+1 >= len(format) {
			b.WriteByte(ch)
			continue
		}
		start := i
		i++
		pad, upper, swap := byte(0), false, false
		for ; i < len(format); i++ {
			switch format[i] {
			case '-', '_', '0':
				pad = format[i]
				continue
			case '^':
				upper = true
				continue
			case '#':
				swap = true
				continue
			}
			break
		}
		width := -1
		for i < len(format) && format[i] >= '0' && format[i] <= '9' {
			if width < 0 {
				width = 0
			}
			width = width*10 + int(format[i]-'0')
			i++
		}
		colons := 0
		for i < len(format) && format[i] == ':' {
			colons++
			i++
		}
		if i >= len(format) {
			b.WriteString(format[start:])
			break
		}
		conv := format[i]
		switch {
		case conv == 'N':
			b.WriteString(strftimeNanos(t, pad, width))
			continue
		case conv == 'z' && colons == 0 && (pad != 0 || width >= 0):
			b.WriteString(strftimeZone(t, pad, width))
			continue
		}
		s, numeric, defPad, defWidth := strftimeField(conv, colons, t, width)
		if s == "\x00" {
			b.WriteString(format[start : i+1])
			continue
		}
		if upper && conv != 'P' {
			s = strings.ToUpper(s)
		}
		if swap {
			// glibc's '#': names in upper case, AM/PM and zones in lower.
			switch conv {
			case 'a', 'A', 'b', 'B', 'h':
				s = strings.ToUpper(s)
			case 'p', 'Z':
				s = strings.ToLower(s)
			}
		}
		if numeric {
			p := defPad
			if pad != 0 {
				p = pad
			}
			w := defWidth
			if width >= 0 {
				w = width
			}
			neg := strings.HasPrefix(s, "-")
			digits := strings.TrimLeft(strings.TrimPrefix(s, "-"), " ")
			if defPad == '0' || defPad == ' ' {
				digits = strings.TrimLeft(digits, "0")
				if digits == "" {
					digits = "0"
				}
			}
			if neg {
				digits = "-" + digits
			}
			switch p {
			case '-':
				s = digits
			case '_', ' ':
				s = padTo(digits, w, ' ')
			default:
				if neg {
					s = "-" + padTo(digits[1:], w-1, '0')
				} else {
					s = padTo(digits, w, '0')
				}
			}
		} else if width > 0 && pad != '-' {
			fill := byte(' ')
			if pad == '0' {
				fill = '0'
			}
			s = padTo(s, width, fill)
		}
		b.WriteString(s)
	}
	return b.String()
}

// strftimeNanos is %N: width digits of the fraction (9 by default); '-'
// with a width drops trailing zeros, '_' turns trailing zeros into spaces.
func strftimeNanos(t time.Time, pad byte, width int) string {
	digits := 9
	if width > 0 {
		digits = width
	}
	s := fmt.Sprintf("%09d", t.Nanosecond())
	for len(s) < digits {
		s += "0"
	}
	s = s[:digits]
	switch {
	case pad == '-' && width > 0:
		if s = strings.TrimRight(s, "0"); s == "" {
			s = "0"
		}
	case pad == '_':
		trimmed := strings.TrimRight(s, "0")
		if trimmed == "" {
			trimmed = "0"
		}
		s = trimmed + strings.Repeat(" ", len(s)-len(trimmed))
	}
	return s
}

// strftimeZone is %z under a flag or width: the offset as the number
// ±hhmm, padded like other numbers with the sign in front.
func strftimeZone(t time.Time, pad byte, width int) string {
	_, off := t.Zone()
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	n := strconv.Itoa(off/3600*100 + off/60%60)
	w := 5
	if width >= 0 {
		w = width
	}
	switch pad {
	case '-':
		return sign + n
	case '_':
		return padTo(sign+n, w, ' ')
	}
	return sign + padTo(n, w-1, '0')
}

func padTo(s string, w int, fill byte) string {
	if len(s) >= w {
		return s
	}
	return strings.Repeat(string(fill), w-len(s)) + s
}

// strftimeField returns one conversion's text, whether flags pad it as a
// number, and its default padding and width. "\x00" means unknown.
func strftimeField(conv byte, colons int, t time.Time, width int) (string, bool, byte, int) {
	num := func(n, w int) (string, bool, byte, int) { return strconv.Itoa(n), true, '0', w }
	spaced := func(n, w int) (string, bool, byte, int) { return strconv.Itoa(n), true, ' ', w }
	text := func(s string) (string, bool, byte, int) { return s, false, 0, 0 }
	hour12 := t.Hour() % 12
	if hour12 == 0 {
		hour12 = 12
	}
	switch conv {
	case 'a':
		return text(shortDays[t.Weekday()])
	case 'A':
		return text(t.Weekday().String())
	case 'b', 'h':
		return text(shortMonths[t.Month()-1])
	case 'B':
		return text(t.Month().String())
	case 'c':
		return text(Format("%a %b %e %H:%M:%S %Y", t))
	case 'C':
		return num(t.Year()/100, 2)
	case 'd':
		return num(t.Day(), 2)
	case 'D':
		return text(Format("%m/%d/%y", t))
	case 'e':
		return spaced(t.Day(), 2)
	case 'F':
		return text(Format("%Y-%m-%d", t))
	case 'g':
		y, _ := t.ISOWeek()
		return num(y%100, 2)
	case 'G':
		y, _ := t.ISOWeek()
		return num(y, 4)
	case 'H':
		return num(t.Hour(), 2)
	case 'I':
		return num(hour12, 2)
	case 'j':
		return num(t.YearDay(), 3)
	case 'k':
		return spaced(t.Hour(), 2)
	case 'l':
		return spaced(hour12, 2)
	case 'm':
		return num(int(t.Month()), 2)
	case 'M':
		return num(t.Minute(), 2)
	case 'n':
		return text("\n")
	case 'N':
		ns := fmt.Sprintf("%09d", t.Nanosecond())
		if width > 0 && width < 9 {
			ns = ns[:width]
		}
		return text(ns)
	case 'p':
		if t.Hour() < 12 {
			return text("AM")
		}
		return text("PM")
	case 'P':
		if t.Hour() < 12 {
			return text("am")
		}
		return text("pm")
	case 'q':
		return num((int(t.Month())-1)/3+1, 1)
	case 'r':
		return text(Format("%I:%M:%S %p", t))
	case 'R':
		return text(Format("%H:%M", t))
	case 's':
		return num(int(t.Unix()), 1)
	case 'S':
		return num(t.Second(), 2)
	case 't':
		return text("\t")
	case 'T':
		return text(Format("%H:%M:%S", t))
	case 'u':
		wd := int(t.Weekday())
		if wd == 0 {
			wd = 7
		}
		return num(wd, 1)
	case 'U':
		return num((t.YearDay()+6-int(t.Weekday()))/7, 2)
	case 'V':
		_, w := t.ISOWeek()
		return num(w, 2)
	case 'w':
		return num(int(t.Weekday()), 1)
	case 'W':
		return num((t.YearDay()+6-(int(t.Weekday())+6)%7)/7, 2)
	case 'x':
		return text(Format("%m/%d/%y", t))
	case 'X':
		return text(Format("%H:%M:%S", t))
	case 'y':
		return num(t.Year()%100, 2)
	case 'Y':
		return num(t.Year(), 1)
	case 'z':
		_, off := t.Zone()
		sign := "+"
		if off < 0 {
			sign, off = "-", -off
		}
		h, m, s := off/3600, off/60%60, off%60
		switch colons {
		case 0:
			return text(fmt.Sprintf("%s%02d%02d", sign, h, m))
		case 1:
			return text(fmt.Sprintf("%s%02d:%02d", sign, h, m))
		case 2:
			return text(fmt.Sprintf("%s%02d:%02d:%02d", sign, h, m, s))
		default:
			if m == 0 && s == 0 {
				return text(fmt.Sprintf("%s%02d", sign, h))
			}
			return text(fmt.Sprintf("%s%02d:%02d", sign, h, m))
		}
	case 'Z':
		name, _ := t.Zone()
		return text(name)
	case '%':
		return text("%")
	}
	return "\x00", false, 0, 0
}
