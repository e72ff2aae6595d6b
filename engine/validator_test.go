package engine_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
)

// validatorCase is one input to a validator and its verdict.
type validatorCase struct {
	valid func(string) bool
	in    string
	want  bool
}

var _ = Describe("validators", func() {
	DescribeTable("builtin validators accept and reject",
		func(tc validatorCase) {
			Expect(tc.valid(tc.in)).To(Equal(tc.want), "got %q -> %t, want %t", tc.in, !tc.want, tc.want)
		},
		Entry("email: plain", validatorCase{engine.ValidEmail, "a@b.co", true}),
		Entry("email: dots, plus and subdomain", validatorCase{engine.ValidEmail, "first.last+tag@mail.example.org", true}),
		Entry("email: hyphenated domain", validatorCase{engine.ValidEmail, "x@my-host.io", true}),
		Entry("email: no @", validatorCase{engine.ValidEmail, "a.b.co", false}),
		Entry("email: no local part", validatorCase{engine.ValidEmail, "@b.co", false}),
		Entry("email: domain without a dot", validatorCase{engine.ValidEmail, "root@localhost", false}),
		Entry("email: one-letter top-level domain", validatorCase{engine.ValidEmail, "a@b.c", false}),
		Entry("email: double dot in local part", validatorCase{engine.ValidEmail, "a..b@c.co", false}),
		Entry("email: label starting with a hyphen", validatorCase{engine.ValidEmail, "a@-b.co", false}),
		Entry("email: space", validatorCase{engine.ValidEmail, "a b@c.co", false}),
		Entry("email: two @", validatorCase{engine.ValidEmail, "a@b@c.co", false}),
		Entry("email: empty", validatorCase{engine.ValidEmail, "", false}),

		Entry("phone: international", validatorCase{engine.ValidPhone, "+44 20 7946 0958", true}),
		Entry("phone: parentheses and dash", validatorCase{engine.ValidPhone, "(555) 123-4567", true}),
		Entry("phone: dots", validatorCase{engine.ValidPhone, "555.123.4567", true}),
		Entry("phone: seven bare digits", validatorCase{engine.ValidPhone, "1234567", true}),
		Entry("phone: six digits", validatorCase{engine.ValidPhone, "123-456", false}),
		Entry("phone: plus not leading", validatorCase{engine.ValidPhone, "12+34567890", false}),
		Entry("phone: two pluses", validatorCase{engine.ValidPhone, "++441234567", false}),
		Entry("phone: letters", validatorCase{engine.ValidPhone, "555-CALL-NOW", false}),
		Entry("phone: empty", validatorCase{engine.ValidPhone, "", false}),

		Entry("url: https", validatorCase{engine.ValidURL, "https://example.com", true}),
		Entry("url: http with port, path and query", validatorCase{engine.ValidURL, "http://example.com:8080/a/b?q=1", true}),
		Entry("url: other scheme", validatorCase{engine.ValidURL, "ftp://example.com", false}),
		Entry("url: no scheme", validatorCase{engine.ValidURL, "example.com", false}),
		Entry("url: no host", validatorCase{engine.ValidURL, "https:///path", false}),
		Entry("url: space", validatorCase{engine.ValidURL, "https://example.com/a b", false}),
		Entry("url: javascript", validatorCase{engine.ValidURL, "javascript:alert(1)", false}),
		Entry("url: empty", validatorCase{engine.ValidURL, "", false}),

		Entry("number: integer", validatorCase{engine.ValidNumber, "42", true}),
		Entry("number: negative decimal", validatorCase{engine.ValidNumber, "-3.5", true}),
		Entry("number: exponent", validatorCase{engine.ValidNumber, "1e3", true}),
		Entry("number: surrounding spaces", validatorCase{engine.ValidNumber, " 7 ", true}),
		Entry("number: words", validatorCase{engine.ValidNumber, "seven", false}),
		Entry("number: decimal comma", validatorCase{engine.ValidNumber, "1,5", false}),
		Entry("number: NaN", validatorCase{engine.ValidNumber, "NaN", false}),
		Entry("number: infinity", validatorCase{engine.ValidNumber, "inf", false}),
		Entry("number: out of range", validatorCase{engine.ValidNumber, "1e400", false}),
		Entry("number: empty", validatorCase{engine.ValidNumber, "", false}),

		Entry("text: word", validatorCase{engine.ValidText, "hi", true}),
		Entry("text: padded", validatorCase{engine.ValidText, "  x ", true}),
		Entry("text: blank", validatorCase{engine.ValidText, " \t\n", false}),
		Entry("text: empty", validatorCase{engine.ValidText, "", false}),
	)

	Describe("declared validators", func() {
		var (
			m   *engine.Machine
			cfg engine.Config
			res engine.Result
		)

		BeforeEach(func() {
			b := et.New("declared", "s").
				Intents("check").
				State("s", et.Waits(),
					et.OnIf("check", `yesno(event.value)`, "", et.Say("yesno")),
					et.OnIf("check", `pin(event.value)`, "", et.Say("pin")),
					et.OnIf("check", `year(event.value)`, "", et.Say("year")),
					et.OnIf("check", `contact(event.value)`, "", et.Say("contact")),
					et.OnIf("check", `place(event.value)`, "", et.Say("place")),
					et.On("check", "", et.Say("none")))
			b.Def().Validators = []engine.ValidatorDef{
				{Name: "yesno", OneOf: []string{"yes", "no"}},
				{Name: "pin", Regex: `[0-9]{4}`},
				{Name: "year", Regex: `^AD[0-9]{4}`},
				{Name: "contact", Builtin: "email"},
				{Name: "place", OneOf: []string{"Madrid", "Rome", "Madrid", "Rio", "Barcelona", "a place of twenty bytes", "Lisboa, Portugal"}},
			}
			var err error
			m, err = b.Build()
			Expect(err).NotTo(HaveOccurred())
			cfg, res = engine.Config{}, engine.Result{}
			Expect(m.Start(&cfg, 0, &res)).To(Succeed())
		})

		DescribeTable("judge the whole value, as guard functions",
			func(value, want string) {
				Expect(stepScript(m, &cfg, &res, "check="+value)).To(Succeed())
				Expect(et.Says(&res)).To(Equal([]string{want}))
			},
			Entry("one_of: listed", "yes", "yesno"),
			Entry("one_of: case matters", "Yes", "none"),
			Entry("one_of: listed twice", "Madrid", "place"),
			Entry("one_of: of three bytes", "Rio", "place"),
			Entry("one_of: of sixteen bytes", "Lisboa, Portugal", "place"),
			Entry("one_of: longer than sixteen bytes", "a place of twenty bytes", "place"),
			Entry("one_of: a listed text's prefix", "Madri", "none"),
			Entry("one_of: as long as a listed text", "Madrix", "none"),
			Entry("one_of: a long listed text's prefix", "a place of twenty byte", "none"),
			Entry("regex: whole match", "1234", "pin"),
			Entry("regex: longer value", "12345", "none"),
			Entry("regex: value with a prefix", "a1234", "none"),
			Entry("regex anchored only at its start: whole match", "AD1999", "year"),
			Entry("regex anchored only at its start: longer value", "AD19999", "none"),
			Entry("builtin", "a@b.co", "contact"),
		)
	})

	It("rejects a declared validator with none or several of one_of, regex and builtin", func() {
		b := et.New("v", "s").State("s")
		b.Def().Validators = []engine.ValidatorDef{
			{Name: "neither", Pos: at(5, 3)},
			{Name: "both", OneOf: []string{"a"}, Regex: "a", Pos: at(6, 3)},
			{Name: "odd", Builtin: "zip", Pos: at(7, 3)},
		}
		_, diags := engine.Build(b.Def())
		var got []string
		for _, d := range diags {
			got = append(got, d.Error())
		}
		Expect(got).To(Equal([]string{
			`machine.yaml:5:3: validator "neither" needs exactly one of one_of, regex or builtin`,
			`machine.yaml:6:3: validator "both" needs exactly one of one_of, regex or builtin`,
			`machine.yaml:7:3: validator "odd": unknown builtin "zip" (want one of email, phone, url, number, text)`,
		}))
	})
})
