package coreutils

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
	tfmt "github.com/wsfs/wsfs/runner/internal/strftime"
)

var dateSpec = getopt.Spec{
	Usage: []string{"[OPTION]... [+FORMAT]"},
	Options: []getopt.Option{
		{Short: 'd', Long: "date", Arg: getopt.Required, ArgName: "STRING"}, {Short: 'u', Long: "utc"},
		{Long: "universal", Key: "utc"}, {Short: 'r', Long: "reference", Arg: getopt.Required, ArgName: "FILE"},
		{Short: 'R', Long: "rfc-email"}, {Short: 'I', Long: "iso-8601", Arg: getopt.Optional, ArgName: "FMT"},
		{Long: "rfc-3339", Arg: getopt.Required, ArgName: "FMT"},
	},
	Extra: []string{"+FORMAT"},
}

func runDate(ctx context.Context, env *command.Env) int {
	opts, operands, code, ok := dateSpec.Run(env)
	if !ok {
		return code
	}
	utc, rfcEmail := opts.Has("utc"), opts.Has("rfc-email")
	dateStr, _ := opts.Value("date")
	ref, _ := opts.Value("reference")
	iso, isoSet := opts.Value("iso-8601")
	rfc3339, _ := opts.Value("rfc-3339")
	loc := time.Local
	if tz := getenv(env, "TZ"); tz != "" {
		if l, err := loadZone(tz); err == nil {
			loc = l
		}
	}
	if utc {
		loc = time.UTC
	}
	now := time.Now().In(loc)
	t := now
	switch {
	case dateStr != "":
		var err error
		t, err = parseDate(dateStr, now, loc)
		if err != nil {
			env.Errorf("invalid date %s", lquote(dateStr))
			return 1
		}
	case ref != "":
		fi, err := env.FS.Stat(ref)
		if err != nil {
			env.Errorf("%s: %s", ref, command.Strerror(err))
			return 1
		}
		t = fi.ModTime()
	}
	t = t.In(loc)
	format := "%a %b %e %H:%M:%S %Z %Y"
	if len(operands) > 0 {
		if !strings.HasPrefix(operands[0], "+") {
			env.Errorf("invalid date %s", lquote(operands[0]))
			return 1
		}
		if len(operands) > 1 {
			return usageFail(env, 1, "extra operand "+lquote(operands[1]))
		}
		format = operands[0][1:]
	}
	switch {
	case isoSet:
		switch iso {
		case "", "date":
			format = "%Y-%m-%d"
		case "hours":
			format = "%Y-%m-%dT%H%:z"
		case "minutes":
			format = "%Y-%m-%dT%H:%M%:z"
		case "seconds":
			format = "%Y-%m-%dT%H:%M:%S%:z"
		case "ns":
			format = "%Y-%m-%dT%H:%M:%S,%N%:z"
		default:
			return usageFail(env, 1, fmt.Sprintf("invalid argument %s for '--iso-8601'", lquote(iso)))
		}
	case rfcEmail:
		format = "%a, %d %b %Y %H:%M:%S %z"
	case rfc3339 != "":
		switch rfc3339 {
		case "date":
			format = "%Y-%m-%d"
		case "seconds":
			format = "%Y-%m-%d %H:%M:%S%:z"
		case "ns":
			format = "%Y-%m-%d %H:%M:%S.%N%:z"
		default:
			return usageFail(env, 1, fmt.Sprintf("invalid argument %s for '--rfc-3339'", lquote(rfc3339)))
		}
	}
	o := newOut(env)
	o.WriteString(strftime(format, t) + "\n")
	return o.finish(env, 0)
}

func getenv(env *command.Env, name string) string {
	if env.Getenv == nil {
		return ""
	}
	return env.Getenv(name)
}

// loadZone reads a TZ value: a zone name, or "UTC0"-like POSIX forms for UTC.
func loadZone(tz string) (*time.Location, error) {
	tz = strings.TrimPrefix(tz, ":")
	switch tz {
	case "UTC", "UTC0", "GMT", "GMT0", "Z":
		return time.UTC, nil
	}
	return time.LoadLocation(tz)
}

// strftime formats t as GNU date does (runner/internal/strftime).
func strftime(format string, t time.Time) string { return tfmt.Format(format, t) }

func padTo(s string, w int, fill byte) string {
	if len(s) >= w {
		return s
	}
	return strings.Repeat(string(fill), w-len(s)) + s
}

var errBadDate = errors.New("invalid date")

// parseDate reads the date strings agents pass to date -d and touch -d:
// "now", "today", "yesterday", "tomorrow", "@EPOCH", ISO 8601 dates and
// times (with T, fractions, Z or offsets), "MM/DD/YYYY", "Jan 2 2006",
// "HH:MM[:SS] [am|pm]", zones (UTC, GMT, Z, +hhmm), weekday names and
// relative items such as "+1 day", "2 hours ago", "next week", "last
// month". A date without a time is midnight; no date means today.
func parseDate(s string, now time.Time, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "@") {
		return parseEpoch(s[1:], loc)
	}
	p := &dateParser{now: now.In(loc), loc: loc}
	if err := p.parse(strings.ToLower(s)); err != nil {
		return time.Time{}, err
	}
	return p.result()
}

func parseEpoch(s string, loc *time.Location) (time.Time, error) {
	secStr, frac, _ := strings.Cut(strings.TrimSpace(s), ".")
	sec, err := strconv.ParseInt(secStr, 10, 64)
	if err != nil {
		return time.Time{}, errBadDate
	}
	ns := int64(0)
	if frac != "" {
		if len(frac) > 9 {
			frac = frac[:9]
		}
		for len(frac) < 9 {
			frac += "0"
		}
		ns, err = strconv.ParseInt(frac, 10, 64)
		if err != nil {
			return time.Time{}, errBadDate
		}
		if sec < 0 || strings.HasPrefix(secStr, "-") {
			ns = -ns
		}
	}
	return time.Unix(sec, ns).In(loc), nil
}

type dateParser struct {
	now  time.Time
	loc  *time.Location
	zone *time.Location

	hasDate, hasTime bool
	year, month, day int
	hour, min, sec   int
	nsec             int

	relYears, relMonths, relDays int
	relDur                       time.Duration
	weekday                      int // 0 none, else 1+weekday
	weekdayOrd                   int
}

func (p *dateParser) setDate(y, m, d int) error {
	if p.hasDate || m < 1 || m > 12 || d < 1 || d > 31 {
		return errBadDate
	}
	p.hasDate, p.year, p.month, p.day = true, y, m, d
	return nil
}

func (p *dateParser) setTime(h, m, s, ns int) error {
	if p.hasTime || h > 23 || m > 59 || s > 59 {
		return errBadDate
	}
	p.hasTime, p.hour, p.min, p.sec, p.nsec = true, h, m, s, ns
	return nil
}

var monthNames = map[string]int{
	"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
	"may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9, "sept": 9,
	"september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12,
}

var dayNames = map[string]int{
	"sun": 0, "sunday": 0, "mon": 1, "monday": 1, "tue": 2, "tues": 2, "tuesday": 2, "wed": 3,
	"wednesday": 3, "thu": 4, "thur": 4, "thurs": 4, "thursday": 4, "fri": 5, "friday": 5,
	"sat": 6, "saturday": 6,
}

// tokenize splits a date string into words, numbers and signs.
func tokenizeDate(s string) []string {
	var toks []string
	i := 0
	for i < len(s) {
		ch := rune(s[i])
		switch {
		case unicode.IsSpace(ch) || ch == ',':
			i++
		case unicode.IsLetter(ch):
			j := i
			for j < len(s) && (unicode.IsLetter(rune(s[j])) || s[j] == '.') {
				j++
			}
			toks = append(toks, strings.TrimSuffix(s[i:j], "."))
			i = j
		case ch >= '0' && ch <= '9':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || strings.IndexByte(":-/.t", s[j]) >= 0 && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9') {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		default:
			toks = append(toks, string(ch))
			i++
		}
	}
	return toks
}

func (p *dateParser) parse(s string) error {
	toks := tokenizeDate(s)
	for i := 0; i < len(toks); i++ {
		tok := toks[i]
		next := func() string {
			if i+1 < len(toks) {
				return toks[i+1]
			}
			return ""
		}
		switch {
		case tok == "now" || tok == "today":
		case tok == "yesterday":
			p.relDays--
		case tok == "tomorrow":
			p.relDays++
		case tok == "ago":
			p.relYears, p.relMonths, p.relDays, p.relDur = -p.relYears, -p.relMonths, -p.relDays, -p.relDur
		case tok == "utc" || tok == "gmt" || tok == "z" || tok == "ut":
			p.zone = time.UTC
		case tok == "am" || tok == "pm" || tok == "a.m" || tok == "p.m":
			if !p.hasTime || p.hour > 12 || p.hour == 0 {
				return errBadDate
			}
			if tok[0] == 'a' && p.hour == 12 {
				p.hour = 0
			} else if tok[0] == 'p' && p.hour != 12 {
				p.hour += 12
			}
		case tok == "next" || tok == "last" || tok == "this":
			n := map[string]int{"next": 1, "last": -1, "this": 0}[tok]
			w := next()
			if d, ok := dayNames[w]; ok {
				p.weekday, p.weekdayOrd = d+1, n
				if n == 0 {
					p.weekdayOrd = 0
				}
				i++
				continue
			}
			if !p.addRel(n, w) {
				return errBadDate
			}
			i++
		case (tok == "+" || tok == "-") && i+1 < len(toks) && isDigits(strings.ReplaceAll(next(), ":", "")):
			n, _ := strconv.Atoi(next())
			if tok == "-" {
				n = -n
			}
			i++
			if strings.Contains(toks[i], ":") || !p.relUnit(&i, toks, n) {
				// A bare signed number after a time is a zone offset.
				z := strings.ReplaceAll(toks[i], ":", "")
				if !p.hasTime || len(z) != 4 && len(z) != 2 || !isDigits(z) {
					return errBadDate
				}
				h, _ := strconv.Atoi(z[:2])
				m := 0
				if len(z) == 4 {
					m, _ = strconv.Atoi(z[2:])
				}
				off := h*3600 + m*60
				if tok == "-" {
					off = -off
				}
				p.zone = time.FixedZone("", off)
			}
		case monthNames[tok] != 0:
			m := monthNames[tok]
			d, y := 0, p.now.Year()
			if isDigits(next()) {
				d, _ = strconv.Atoi(next())
				i++
				if isDigits(next()) && len(next()) == 4 {
					y, _ = strconv.Atoi(next())
					i++
				}
			} else {
				return errBadDate
			}
			if err := p.setDate(y, m, d); err != nil {
				return err
			}
		case dayNames[tok] != 0 || tok == "sun" || tok == "sunday":
			p.weekday, p.weekdayOrd = dayNames[tok]+1, 0
		case isDigits(tok) && monthNames[next()] != 0:
			d, _ := strconv.Atoi(tok)
			m := monthNames[next()]
			i++
			y := p.now.Year()
			if isDigits(next()) && len(next()) == 4 {
				y, _ = strconv.Atoi(next())
				i++
			}
			if err := p.setDate(y, m, d); err != nil {
				return err
			}
		case isDigits(tok) && p.isUnit(next()):
			n, _ := strconv.Atoi(tok)
			if !p.relUnit(&i, toks, n) {
				return errBadDate
			}
		case p.isUnit(tok):
			i--
			if !p.relUnit(&i, toks, 1) {
				return errBadDate
			}
		case len(tok) > 0 && tok[0] >= '0' && tok[0] <= '9':
			if err := p.numeric(tok); err != nil {
				return err
			}
		default:
			return errBadDate
		}
	}
	return nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

var dateUnits = map[string]string{
	"year": "y", "years": "y", "month": "mo", "months": "mo", "fortnight": "f", "fortnights": "f",
	"week": "w", "weeks": "w", "day": "d", "days": "d", "hour": "h", "hours": "h",
	"minute": "m", "minutes": "m", "min": "m", "mins": "m", "second": "s", "seconds": "s",
	"sec": "s", "secs": "s",
}

func (p *dateParser) isUnit(w string) bool { _, ok := dateUnits[w]; return ok }

// relUnit reads the unit after a number at toks[*i] and adds n of it.
func (p *dateParser) relUnit(i *int, toks []string, n int) bool {
	if *i+1 >= len(toks) || !p.isUnit(toks[*i+1]) {
		return false
	}
	*i++
	return p.addRel(n, toks[*i])
}

func (p *dateParser) addRel(n int, unit string) bool {
	switch dateUnits[unit] {
	case "y":
		p.relYears += n
	case "mo":
		p.relMonths += n
	case "f":
		p.relDays += 14 * n
	case "w":
		p.relDays += 7 * n
	case "d":
		p.relDays += n
	case "h":
		p.relDur += time.Duration(n) * time.Hour
	case "m":
		p.relDur += time.Duration(n) * time.Minute
	case "s":
		p.relDur += time.Duration(n) * time.Second
	default:
		return false
	}
	return true
}

// numeric reads a date, time or date-time token: 2024-01-02,
// 2024-01-02t10:00:00.5, 01/02/2024, 10:30, 10:30:15.25, 20240102.
func (p *dateParser) numeric(tok string) error {
	if d, t, ok := strings.Cut(tok, "t"); ok {
		if err := p.numeric(d); err != nil {
			return err
		}
		if j := strings.LastIndexAny(t, "+-"); j > 0 {
			if err := p.numeric(t[:j]); err != nil {
				return err
			}
			z := strings.ReplaceAll(t[j+1:], ":", "")
			if len(z) != 4 && len(z) != 2 || !isDigits(z) {
				return errBadDate
			}
			h, _ := strconv.Atoi(z[:2])
			m := 0
			if len(z) == 4 {
				m, _ = strconv.Atoi(z[2:])
			}
			off := h*3600 + m*60
			if t[j] == '-' {
				off = -off
			}
			p.zone = time.FixedZone("", off)
			return nil
		}
		return p.numeric(t)
	}
	switch {
	case strings.Count(tok, "-") == 2:
		parts := strings.Split(tok, "-")
		y, e1 := strconv.Atoi(parts[0])
		m, e2 := strconv.Atoi(parts[1])
		d, e3 := strconv.Atoi(parts[2])
		if e1 != nil || e2 != nil || e3 != nil {
			return errBadDate
		}
		if len(parts[0]) == 2 {
			y += 1900
			if y < 1969 {
				y += 100
			}
		}
		return p.setDate(y, m, d)
	case strings.Count(tok, "/") >= 1:
		parts := strings.Split(tok, "/")
		if len(parts) > 3 {
			return errBadDate
		}
		m, e1 := strconv.Atoi(parts[0])
		d, e2 := strconv.Atoi(parts[1])
		y := p.now.Year()
		var e3 error
		if len(parts) == 3 {
			y, e3 = strconv.Atoi(parts[2])
			if len(parts[2]) == 2 {
				y += 1900
				if y < 1969 {
					y += 100
				}
			}
		}
		if e1 != nil || e2 != nil || e3 != nil {
			return errBadDate
		}
		return p.setDate(y, m, d)
	case strings.Contains(tok, ":"):
		main, frac, _ := strings.Cut(tok, ".")
		parts := strings.Split(main, ":")
		if len(parts) > 3 {
			return errBadDate
		}
		var v [3]int
		for i, s := range parts {
			n, err := strconv.Atoi(s)
			if err != nil {
				return errBadDate
			}
			v[i] = n
		}
		ns := 0
		if frac != "" {
			f := frac
			if len(f) > 9 {
				f = f[:9]
			}
			for len(f) < 9 {
				f += "0"
			}
			ns, _ = strconv.Atoi(f)
		}
		return p.setTime(v[0], v[1], v[2], ns)
	case len(tok) == 8 && isDigits(tok):
		y, _ := strconv.Atoi(tok[:4])
		m, _ := strconv.Atoi(tok[4:6])
		d, _ := strconv.Atoi(tok[6:])
		return p.setDate(y, m, d)
	case isDigits(tok) && len(tok) <= 4 && p.hasDate && !p.hasTime:
		n, _ := strconv.Atoi(tok)
		if len(tok) <= 2 {
			return p.setTime(n, 0, 0, 0)
		}
		return p.setTime(n/100, n%100, 0, 0)
	case isDigits(tok) && len(tok) == 4 && !p.hasDate:
		y, _ := strconv.Atoi(tok)
		return p.setDate(y, int(p.now.Month()), p.now.Day())
	}
	return errBadDate
}

func (p *dateParser) result() (time.Time, error) {
	loc := p.loc
	if p.zone != nil {
		loc = p.zone
	}
	base := p.now.In(loc)
	y, m, d := base.Date()
	h, mi, s, ns := base.Hour(), base.Minute(), base.Second(), base.Nanosecond()
	if p.hasDate {
		y, m, d = p.year, time.Month(p.month), p.day
		h, mi, s, ns = 0, 0, 0, 0
	}
	if p.hasTime {
		h, mi, s, ns = p.hour, p.min, p.sec, p.nsec
	} else if p.weekday != 0 && !p.hasDate {
		h, mi, s, ns = 0, 0, 0, 0
	}
	if p.hasDate {
		probe := time.Date(y, m, d, 0, 0, 0, 0, loc)
		if probe.Day() != d {
			return time.Time{}, errBadDate
		}
	}
	t := time.Date(y, m, d, h, mi, s, ns, loc)
	// As GNU's parser, a weekday counts only when no calendar date is given.
	if p.weekday != 0 && !p.hasDate {
		want := p.weekday - 1
		diff := (want - int(t.Weekday()) + 7) % 7
		switch {
		case p.weekdayOrd > 0 && diff == 0:
			diff = 7
		case p.weekdayOrd < 0:
			diff -= 7
			if diff == 0 {
				diff = -7
			}
		}
		t = t.AddDate(0, 0, diff)
	}
	if p.relYears != 0 || p.relMonths != 0 || p.relDays != 0 {
		y, m, d := t.Date()
		t = time.Date(y+p.relYears, m+time.Month(p.relMonths), d+p.relDays, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)
	}
	t = t.Add(p.relDur)
	return t.In(p.loc), nil
}
