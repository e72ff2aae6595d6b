package engine

import (
	"fmt"
	"strings"
)

// template is a compiled say-template: literal text with {expression}
// placeholders, rendered into a caller-owned buffer.
type template struct {
	src   string
	parts []templatePart
}

type templatePart struct {
	lit string
	x   compiled
	has bool
}

func (t *template) appendTo(e evalEnv, b []byte) []byte {
	for i := range t.parts {
		p := &t.parts[i]
		b = append(b, p.lit...)
		if p.has {
			b = p.x.appendTo(e, b)
		}
	}
	return b
}

// compileTemplate splits src at {…} placeholders; "{{" and "}}" are literal
// braces.
func (xc *exprCompiler) compileTemplate(src string, pos Pos) (*template, *Error) {
	t := &template{src: src}
	var lit strings.Builder
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '{' && i+1 < len(src) && src[i+1] == '{':
			lit.WriteByte('{')
			i++
		case c == '}' && i+1 < len(src) && src[i+1] == '}':
			lit.WriteByte('}')
			i++
		case c == '{':
			end := strings.IndexByte(src[i:], '}')
			if end < 0 {
				return nil, &Error{Pos: pos, Msg: fmt.Sprintf("template %q: unclosed {", src)}
			}
			inner := src[i+1 : i+end]
			xpos := pos
			xpos.Col += i + 1
			xc.inTemplate = true
			x, err := xc.compile(Expr{Src: inner, Pos: xpos}, Empty)
			xc.inTemplate = false
			if err != nil {
				return nil, err
			}
			t.parts = append(t.parts, templatePart{lit: lit.String(), x: x, has: true})
			lit.Reset()
			i += end
		case c == '}':
			return nil, &Error{Pos: pos, Msg: fmt.Sprintf("template %q: unmatched }", src)}
		default:
			lit.WriteByte(c)
		}
	}
	if lit.Len() > 0 || len(t.parts) == 0 {
		t.parts = append(t.parts, templatePart{lit: lit.String()})
	}
	return t, nil
}
