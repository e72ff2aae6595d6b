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

// The graph layout library (go-graphviz) compiled Graphviz's WebAssembly
// at every start and kept the result in $TMPDIR/go-graphviz, made mode
// 700 by whoever ran first: every other user's simctl panicked at start,
// --version included. simctl's copy of the library
// (third_party/go-graphviz) compiles it at the first layout only, with
// its cache in the user's cache folder (package layoutcache). These
// specs play the second user: as root, through setpriv as nobody;
// otherwise with the shared folder unreadable, which is what the second
// user meets.
var _ = Describe("a second user on the same machine", func() {
	var (
		root, shared, first, locked, bin string
		asOther                          func(env []string, args ...string) *exec.Cmd
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
		// The walkthrough's example: it cites no seed, which the other
		// user's copy could not reach.
		files, err := filepath.Glob("../docs/examples/pizza/*.yaml")
		Expect(err).NotTo(HaveOccurred())
		Expect(files).NotTo(BeEmpty())
		for _, f := range files {
			data, err := os.ReadFile(f)
			Expect(err).NotTo(HaveOccurred())
			Expect(os.WriteFile(filepath.Join(suite, filepath.Base(f)), data, 0o644)).To(Succeed())
		}
		// Where the other user may write (reports), whatever the umask.
		Expect(os.Mkdir(filepath.Join(root, "out"), 0o777)).To(Succeed())
		Expect(os.Chmod(filepath.Join(root, "out"), 0o777)).To(Succeed())
		// A folder the other user cannot write: root's, mode 755, for
		// nobody; mode 555 for the user who runs the spec.
		locked = filepath.Join(root, "locked")
		Expect(os.Mkdir(locked, 0o755)).To(Succeed())

		// The first user's cache, as the library leaves it in the shared
		// temporary folder: wazero's folder for its version and
		// platform, mode 700.
		shared = filepath.Join(root, "tmp")
		first = filepath.Join(shared, "go-graphviz", "wazero-"+wazeroVersion()+"-"+runtime.GOARCH+"-"+runtime.GOOS)
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
			Expect(os.Chmod(locked, 0o555)).To(Succeed())
			asOther = func(env []string, args ...string) *exec.Cmd {
				c := exec.Command(bin, args...)
				c.Env = env
				return c
			}
		}
	})

	// run runs simctl as the other user in root with env, and returns its
	// exit status, stdout and stderr.
	run := func(env []string, args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		c := asOther(env, args...)
		c.Dir = root
		c.Stdout, c.Stderr = &stdout, &stderr
		err := c.Run()
		if err != nil {
			Expect(err).To(BeAssignableToTypeOf(&exec.ExitError{}), "stderr: %s", stderr.String())
		}
		return c.ProcessState.ExitCode(), stdout.String(), stderr.String()
	}

	// home makes a home folder the other user can write, and returns an
	// environment with it and the shared temporary folder.
	home := func() (string, []string) {
		h := filepath.Join(root, "home")
		Expect(os.Mkdir(h, 0o777)).To(Succeed())
		Expect(os.Chmod(h, 0o777)).To(Succeed()) // whatever the umask
		return h, []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + shared, "HOME=" + h}
	}

	// nowhere is an environment where no cache folder can be made: home,
	// XDG cache and temporary folder all in the locked folder.
	nowhere := func() []string {
		return []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + locked, "HOME=" + locked,
			"XDG_CACHE_HOME=" + filepath.Join(locked, "cache")}
	}

	DescribeTable("never load the layout library nor touch a cache: commands that draw no graph",
		func(args []string) {
			h, env := home()
			code, stdout, stderr := run(env, args...)
			Expect(code).To(Equal(0), "stdout: %s\nstderr: %s", stdout, stderr)
			Expect(stdout).NotTo(BeEmpty())
			Expect(filepath.Join(h, ".cache")).NotTo(BeAnExistingFile())
			Expect(filepath.Glob(filepath.Join(shared, "go-graphviz", "*"))).To(Equal([]string{first}))

			code, stdout, stderr = run(nowhere(), args...)
			Expect(code).To(Equal(0), "stdout: %s\nstderr: %s", stdout, stderr)
			Expect(stderr).NotTo(ContainSubstring("panic"))
			Expect(stdout).NotTo(BeEmpty())
		},
		Entry("--version", []string{"--version"}),
		Entry("version", []string{"version"}),
		Entry("help", []string{"help"}),
		Entry("help graph", []string{"help", "graph"}),
		Entry("lint", []string{"lint", "suite"}),
		Entry("replay", []string{"replay", "suite/happy.scenario.yaml"}),
		Entry("explore", []string{"explore", "suite", "--depth", "3"}),
		Entry("graph --format dot", []string{"graph", "suite", "--format", "dot"}),
		Entry("graph --format mermaid", []string{"graph", "suite", "--format", "mermaid"}),
	)

	DescribeTable("lay out without a panic, the cache in their own cache folder: commands that draw a graph",
		func(args []string, want string) {
			h, env := home()
			code, stdout, stderr := run(env, args...)
			Expect(code).To(Equal(0), "stdout: %s\nstderr: %s", stdout, stderr)
			Expect(stderr).NotTo(ContainSubstring("panic"))
			Expect(stdout).To(ContainSubstring(want))
			Expect(filepath.Join(h, ".cache", "simctl", "go-graphviz")).To(BeADirectory())
		},
		Entry("graph --format svg", []string{"graph", "suite", "--format", "svg"}, "<svg"),
		Entry("run, which writes report.html", []string{"run", "suite", "--out", "out", "-q"}, "reports written to out"),
	)

	It("lays out in memory, slower but without a panic, when its own cache folder cannot be made either", func() {
		code, stdout, stderr := run(nowhere(), "graph", "suite", "--format", "svg")
		Expect(code).To(Equal(0), "stdout: %s\nstderr: %s", stdout, stderr)
		Expect(stdout).To(ContainSubstring("<svg"))
		Expect(filepath.Join(locked, "cache")).NotTo(BeAnExistingFile())
		Expect(filepath.Join(locked, "go-graphviz")).NotTo(BeAnExistingFile())
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
