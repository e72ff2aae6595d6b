package engine

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/simctl/simctl/shorttext"
)

// validator is a compiled ValidatorDef.
type validator struct {
	name string
	pos  Pos
	// A one_of's texts of 1 to shorttext.Max bytes are in short, so that
	// a check, which a guard such as valid(candidate) makes on every
	// answer, compares no text; the others in long.
	short shorttext.Table
	long  []string
	re    *regexp.Regexp
	fn    func(string) bool
}

// check reports whether s passes v; every text passes no validator (nil).
func (v *validator) check(s string) bool {
	switch {
	case v == nil:
		return true
	case v.fn != nil:
		return v.fn(s)
	case v.re != nil:
		return v.re.MatchString(s)
	}
	if n := len(s); uint(n-1) < shorttext.Max {
		lo, hi := shorttext.Words(s)
		_, ok := v.short.Find(lo, hi, n)
		return ok
	}
	for _, o := range v.long {
		if o == s {
			return true
		}
	}
	return false
}

// emailRe is a simplified RFC 5322 address: a dot-atom local part, an @, and
// a domain of dot-separated labels with a final label of letters.
var emailRe = newMatchMemo(regexp.MustCompile(`^[A-Za-z0-9!#$%&'*+/=?^_{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_{|}~-]+)*@([A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}$`))

// ValidEmail reports whether s is a plausible e-mail address.
func ValidEmail(s string) bool { return emailRe.MatchString(s) }

// ValidPhone accepts digits, spaces, dashes, dots, parentheses and one
// leading plus, with at least 7 digits.
func ValidPhone(s string) bool {
	digits := 0
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '+' && i == 0:
		case r == ' ' || r == '-' || r == '.' || r == '(' || r == ')':
		default:
			return false
		}
	}
	return digits >= 7
}

// ValidURL accepts absolute http and https URLs with a host.
func ValidURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && !strings.ContainsAny(s, " \t\n")
}

// ValidNumber accepts anything that parses as a finite float.
func ValidNumber(s string) bool {
	_, ok := parseNumber(s)
	return ok
}

// ValidText accepts any text that is not blank.
func ValidText(s string) bool { return strings.TrimSpace(s) != "" }

var builtinValidatorFuncs = map[string]func(string) bool{
	"email":  ValidEmail,
	"phone":  ValidPhone,
	"url":    ValidURL,
	"number": ValidNumber,
	"text":   ValidText,
}

func compileValidator(d ValidatorDef) (*validator, *Error) {
	v := &validator{name: d.Name, pos: d.Pos}
	set := 0
	if d.OneOf != nil {
		set++
		var short []string
		for _, o := range d.OneOf {
			if uint(len(o)-1) >= shorttext.Max {
				v.long = append(v.long, o)
			} else if !slices.Contains(short, o) {
				short = append(short, o)
			}
		}
		v.short = shorttext.NewTable(len(short))
		for _, o := range short {
			lo, hi := shorttext.Words(o)
			v.short.Add(lo, hi, len(o), 1)
		}
	}
	if d.Regex != "" {
		set++
		if _, err := regexp.Compile(d.Regex); err != nil {
			return nil, &Error{Pos: d.Pos, Msg: fmt.Sprintf("validator %q: bad regular expression: %v", d.Name, err)}
		}
		// A field validator judges the whole value, not a part of it, even
		// when the pattern anchors only its start ("^[0-9]{4}").
		v.re = regexp.MustCompile("^(?:" + d.Regex + ")$")
	}
	if d.Builtin != "" {
		set++
		f, ok := builtinValidatorFuncs[d.Builtin]
		if !ok {
			return nil, &Error{Pos: d.Pos, Msg: fmt.Sprintf("validator %q: unknown builtin %q (want one of email, phone, url, number, text)", d.Name, d.Builtin)}
		}
		v.fn = f
	}
	if set != 1 {
		return nil, &Error{Pos: d.Pos, Msg: fmt.Sprintf("validator %q needs exactly one of one_of, regex or builtin", d.Name)}
	}
	return v, nil
}
