package spec_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/spec"
)

var _ = Describe("Quote", func() {
	DescribeTable("quotes as %q does, at most 80 characters, then …",
		func(in, want string) { Expect(spec.Quote(in)).To(Equal(want)) },
		Entry("a short value", "hello", `"hello"`),
		Entry("80 characters, whole", strings.Repeat("a", 80), `"`+strings.Repeat("a", 80)+`"`),
		Entry("81 characters, cut", strings.Repeat("a", 81), `"`+strings.Repeat("a", 80)+`"…`),
		Entry("characters, not bytes", strings.Repeat("é", 100), `"`+strings.Repeat("é", 80)+`"…`),
		Entry("new lines escaped", "a\nb", `"a\nb"`),
	)
})

var _ = Describe("ReadFile", func() {
	var dir string
	BeforeEach(func() { dir = GinkgoT().TempDir() })

	It("reads a regular file within the limit", func() {
		path := filepath.Join(dir, "f")
		Expect(os.WriteFile(path, []byte("12345"), 0o644)).To(Succeed())
		data, err := spec.ReadFile(path, "test file", 5)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(Equal("12345"))
	})

	DescribeTable("refuses, in one line, before reading",
		func(make func(path string), want string) {
			path := filepath.Join(dir, "f")
			make(path)
			_, err := spec.ReadFile(path, "test file", 4)
			Expect(err).To(MatchError(path + want))
		},
		Entry("a file over the limit", func(p string) { Expect(os.WriteFile(p, []byte("12345"), 0o644)).To(Succeed()) },
			":1:1: file is 5 bytes, more than the 4 allowed"),
		Entry("a named pipe", func(p string) { Expect(syscall.Mkfifo(p, 0o644)).To(Succeed()) },
			": cannot read test file: it is a named pipe (FIFO), not a regular file"),
		Entry("a device", func(p string) { Expect(os.Symlink("/dev/null", p)).To(Succeed()) },
			": cannot read test file: it is a character device, not a regular file"),
		Entry("a folder", func(p string) { Expect(os.Mkdir(p, 0o755)).To(Succeed()) },
			": cannot read test file: it is a folder, not a regular file"),
		Entry("a missing file", func(string) {},
			": cannot read test file: no such file or directory"),
		Entry("a dangling symlink", func(p string) { Expect(os.Symlink(p+".gone", p)).To(Succeed()) },
			": cannot read test file: no such file or directory"),
	)
})
