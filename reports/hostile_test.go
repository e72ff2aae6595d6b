package reports_test

import (
	"errors"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/reports"
)

var _ = Describe("NeutraliseCell", func() {
	DescribeTable("quotes what a spreadsheet would take for a formula, as OWASP recommends, and nothing else",
		func(cell, want string) {
			Expect(reports.NeutraliseCell(cell)).To(Equal(want))
			Expect(reports.UnneutraliseCell(reports.NeutraliseCell(cell))).To(Equal(cell))
		},
		Entry("a DDE payload", `=cmd|' /C calc'!A0`, `'=cmd|' /C calc'!A0`),
		Entry("a sum", "+1+1", "'+1+1"),
		Entry("a difference", "-2+3", "'-2+3"),
		Entry("an @ function", "@SUM(A1:A2)", "'@SUM(A1:A2)"),
		Entry("a scenario named =1+2", "=1+2", "'=1+2"),
		Entry("a leading tab", "\tx", "'\tx"),
		Entry("a leading carriage return", "\rx", "'\rx"),
		Entry("a lone minus", "-", "'-"),
		Entry("a cell already quoted, kept reversible", "'hello", "''hello"),
		Entry("a negative number, kept numeric", "-2", "-2"),
		Entry("a signed decimal, kept numeric", "+1.5", "+1.5"),
		Entry("an exponent, kept numeric", "-0.25e3", "-0.25e3"),
		Entry("a plain word", "hello", "hello"),
		Entry("a formula sign inside", "a=b", "a=b"),
		Entry("nothing", "", ""),
	)
})

var _ = Describe("Lock", func() {
	It("lets one holder write into a folder at a time, creates the folder and removes it if nothing was written", func() {
		out := filepath.Join(GinkgoT().TempDir(), "a", "out")
		release, err := reports.Lock(out)
		Expect(err).NotTo(HaveOccurred())
		Expect(filepath.Join(out, reports.LockFile)).To(BeAnExistingFile())

		// flock locks are per open file, so a second open in this process
		// stands for a second process.
		_, err = reports.Lock(out)
		Expect(errors.Is(err, reports.ErrLocked)).To(BeTrue(), "got %v", err)
		Expect(err.Error()).To(Equal(out + ": another simctl is writing reports to this folder (it holds .simctl.lock); wait for it to finish or give another --out"))

		release()
		Expect(filepath.Dir(out)).NotTo(BeAnExistingFile())
		release, err = reports.Lock(out)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(out, "report.html"), nil, 0o644)).To(Succeed())
		release()
		Expect(filepath.Join(out, "report.html")).To(BeAnExistingFile())
		Expect(filepath.Join(out, reports.LockFile)).NotTo(BeAnExistingFile())
	})
})
