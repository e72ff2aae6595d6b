package cli_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The graph layout library (go-graphviz) compiles Graphviz's WebAssembly
// at every start and kept the result in $TMPDIR/go-graphviz, made mode
// 700 by whoever ran first: every other user's simctl panicked at start,
// --version included. Package layoutcache moves the cache to the user's
// cache folder. These specs play the second user: as root, through
// setpriv as nobody; otherwise with the shared folder unreadable, which
// is what the second user meets.
var _ = Describe("a second user on the same machine", func() {
	var (
		root, shared, bin string
		asOther           func(env []string, args ...string) *exec.Cmd
	)

	BeforeEach(func() {
		var err error
		// World-traversable, so that nobody can reach it when root runs
		// the spec; removed after.
		root, err = os.MkdirTemp("", "simctl-second-user-")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(os.RemoveAll, root)
		Expect(os.Chmod(root, 0o755)).To(Succeed())
		bin = filepath.Join(root, "simctl")
		data, err := os.ReadFile(simctlBinary())
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(bin, data, 0o755)).To(Succeed())
		suite := filepath.Join(root, "suite")
		Expect(os.Mkdir(suite, 0o755)).To(Succeed())
		machine, err := os.ReadFile("../scenarios/soni/machine.yaml")
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(suite, "machine.yaml"), machine, 0o644)).To(Succeed())

		// The first user's cache, as the library leaves it: wazero's
		// folder for its version and platform, mode 700.
		shared = filepath.Join(root, "shared")
		first := filepath.Join(shared, "go-graphviz", "wazero-"+wazeroVersion()+"-"+runtime.GOARCH+"-"+runtime.GOOS)
		Expect(os.MkdirAll(first, 0o755)).To(Succeed())
		Expect(os.Chmod(shared, 0o777)).To(Succeed())
		if os.Geteuid() == 0 {
			Expect(os.Chmod(first, 0o700)).To(Succeed())
			setpriv, err := exec.LookPath("setpriv")
			Expect(err).NotTo(HaveOccurred(), "as root, the spec needs setpriv (util-linux) to run simctl as nobody")
			asOther = func(env []string, args ...string) *exec.Cmd {
				c := exec.Command(setpriv, append([]string{"--reuid=65534", "--regid=65534", "--clear-groups", bin}, args...)...)
				c.Env = env
				return c
			}
		} else {
			Expect(os.Chmod(first, 0)).To(Succeed())
			DeferCleanup(os.Chmod, first, os.FileMode(0o700))
			asOther = func(env []string, args ...string) *exec.Cmd {
				c := exec.Command(bin, args...)
				c.Env = env
				return c
			}
		}
	})

	// env is a minimal environment: the shared temporary folder and home.
	env := func(home string) []string {
		return []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + shared, "HOME=" + home}
	}

	DescribeTable("runs without a panic, the cache in its own cache folder",
		func(args []string) {
			home := filepath.Join(root, "home")
			Expect(os.Mkdir(home, 0o777)).To(Succeed())
			Expect(os.Chmod(home, 0o777)).To(Succeed()) // whatever the umask
			var stdout, stderr bytes.Buffer
			c := asOther(env(home), args...)
			c.Dir = root
			c.Stdout, c.Stderr = &stdout, &stderr
			Expect(c.Run()).To(Succeed(), "stderr: %s", stderr.String())
			Expect(stderr.String()).NotTo(ContainSubstring("panic"))
			Expect(stdout.Len()).To(BeNumerically(">", 0))
			Expect(filepath.Join(home, ".cache", "simctl", "go-graphviz")).To(BeADirectory())
		},
		Entry("--version", []string{"--version"}),
		Entry("help", []string{"help"}),
		Entry("graph --format svg, which lays out", []string{"graph", "suite", "--format", "svg"}),
	)

	It("lays out in memory, slower but without a panic, when its own cache folder cannot be made either", func() {
		home := filepath.Join(root, "home")
		Expect(os.Mkdir(home, 0o555)).To(Succeed())
		var stdout, stderr bytes.Buffer
		c := asOther(env(home), "graph", "suite", "--format", "svg")
		c.Dir = root
		c.Stdout, c.Stderr = &stdout, &stderr
		Expect(c.Run()).To(Succeed(), "stderr: %s", stderr.String())
		Expect(stdout.String()).To(ContainSubstring("<svg"))
		Expect(filepath.Join(home, ".cache")).NotTo(BeADirectory())
	})
})

// wazeroVersion is the version of wazero simctl is built with; its cache
// folder is named after it.
func wazeroVersion() string {
	v, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "github.com/tetratelabs/wazero").Output()
	Expect(err).NotTo(HaveOccurred())
	return string(bytes.TrimSpace(v))
}

var _ = Describe("simctl --version of a binary built by make build", func() {
	It("names the revision even when GOFLAGS has -buildvcs=false", func() {
		out, err := exec.Command(simctlBinary(), "--version").Output()
		Expect(err).NotTo(HaveOccurred())
		Expect(binHead).NotTo(BeEmpty(), "the spec needs the repository's git history")
		Expect(string(out)).To(MatchRegexp(`^simctl \d+\.\d+\.\d+ \(revision %s(\+modified)?, go[^)]+\)\n$`, binHead))
	})
})
