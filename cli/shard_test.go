package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/cli"
)

// files returns every file under dir, relative, with its content.
func files(dir string) map[string][]byte {
	out := map[string][]byte{}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			data, _ := os.ReadFile(path)
			out[rel] = data
		}
		return nil
	})
	return out
}

var _ = Describe("sharded runs", func() {
	suites := []string{"../scenarios/soni", "../scenarios/hfsm", "../scenarios/thea"}
	args := func(extra ...string) []string {
		a := append([]string{"run"}, suites...)
		a = append(a, "--generate", "240", "--seed", "5", "--explore-depth", "3", "--quiet")
		return append(a, extra...)
	}

	It("merge into the same summary.json, CSVs, JUnit and report as one process, for 1, 2, 3 and 7 shards", func() {
		base := GinkgoT().TempDir()
		out := filepath.Join(base, "out")
		var stdout, stderr bytes.Buffer
		code := cli.Main(args("--out", out), &stdout, &stderr)
		Expect(stderr.String()).To(BeEmpty())
		Expect(code).To(BeElementOf(cli.ExitOK, cli.ExitFailed))
		want := files(out)
		delete(want, "shard.json")
		Expect(want).To(HaveKey("summary.json"))
		Expect(want).To(HaveKey("junit.xml"))
		Expect(os.RemoveAll(out)).To(Succeed())

		for _, n := range []int{1, 2, 3, 7} {
			var dirs []string
			for i := 0; i < n; i++ {
				dir := filepath.Join(base, fmt.Sprintf("shard-%d-%d", n, i))
				stderr.Reset()
				c := cli.Main(args("--shard", fmt.Sprintf("%d/%d", i, n), "--out", dir), &stdout, &stderr)
				Expect(stderr.String()).To(BeEmpty())
				Expect(c).To(BeElementOf(cli.ExitOK, cli.ExitFailed))
				dirs = append(dirs, dir)
			}
			// Shards may be given in any order.
			sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
			stderr.Reset()
			c := cli.Main(append(append([]string{"report", "merge"}, dirs...), "--out", out), &stdout, &stderr)
			Expect(stderr.String()).To(BeEmpty())
			Expect(c).To(Equal(code), "the merged verdict must be the run's")
			got := files(out)
			Expect(got).To(HaveLen(len(want)), "shards=%d", n)
			for name, w := range want {
				Expect(got).To(HaveKey(name), "shards=%d", n)
				Expect(string(got[name])).To(Equal(string(w)), "shards=%d: %s differs", n, name)
			}
			Expect(os.RemoveAll(out)).To(Succeed())
		}
	})

	// hfsm and soni, not thea: thea's complete search (10,808
	// configurations, two million generated) cost 13 s of CPU per run,
	// and this spec ran it fourteen times (half of the package's time). The
	// merge of complete searches is the same code whatever the machine;
	// soni's has 5,059 configurations in six levels, and explore's part
	// specs merge thea's, split early and late, search by search.
	It("merge into what one process writes when the explorations are complete (the default), for 1, 2, 3 and 7 shards", func() {
		base := GinkgoT().TempDir()
		out := filepath.Join(base, "out")
		run := func(extra ...string) int {
			var stdout, stderr bytes.Buffer
			a := append([]string{"run", "../scenarios/hfsm", "../scenarios/soni", "--generate", "20", "--seed", "3", "--quiet"}, extra...)
			code := cli.Main(a, &stdout, &stderr)
			Expect(stderr.String()).To(BeEmpty())
			return code
		}
		code := run("--out", out)
		want := files(out)
		Expect(string(want["summary.json"])).To(ContainSubstring(`"complete": true`))
		Expect(os.RemoveAll(out)).To(Succeed())
		for _, n := range []int{1, 2, 3, 7} {
			var dirs []string
			for i := 0; i < n; i++ {
				dir := filepath.Join(base, fmt.Sprintf("shard-%d-%d", n, i))
				Expect(run("--shard", fmt.Sprintf("%d/%d", i, n), "--out", dir)).To(BeElementOf(cli.ExitOK, cli.ExitFailed))
				dirs = append(dirs, dir)
			}
			var stdout, stderr bytes.Buffer
			Expect(cli.Main(append(append([]string{"report", "merge"}, dirs...), "--out", out), &stdout, &stderr)).To(Equal(code))
			got := files(out)
			Expect(got).To(HaveLen(len(want)), "shards=%d", n)
			for name, w := range want {
				Expect(string(got[name])).To(Equal(string(w)), "shards=%d: %s differs", n, name)
			}
			Expect(os.RemoveAll(out)).To(Succeed())
		}
	})

	DescribeTable("reject bad shard arguments with one line and exit status 2",
		func(a []string, msg string) {
			var stdout, stderr bytes.Buffer
			Expect(cli.Main(a, &stdout, &stderr)).To(Equal(cli.ExitBadInput))
			Expect(stderr.String()).To(Equal("simctl: " + msg + "\n"))
		},
		Entry("not i/n", []string{"run", "../scenarios/soni", "--shard", "2", "--out", "/tmp/x"}, `--shard: expected i/n with 0 <= i < n (shards count from 0, as Kubernetes numbers Indexed Jobs: 0/4 … 3/4), got "2"`),
		Entry("i past n", []string{"run", "../scenarios/soni", "--shard", "3/3", "--out", "/tmp/x"}, `--shard: expected i/n with 0 <= i < n (shards count from 0, as Kubernetes numbers Indexed Jobs: 0/4 … 3/4), got "3/3"`),
		Entry("merging nothing", []string{"report", "merge", "--out", "/tmp/x"}, "report merge: give the shard folders (simctl report merge out/shard-* --out out/merged)"),
		Entry("a folder without shard.json", []string{"report", "merge", "testdata", "--out", "/tmp/x"}, "testdata/shard.json: no shard result here (run simctl run --shard i/n --out DIR first)"),
	)

	DescribeTable("reject shard results whose explorations do not fit together, with one line and exit status 2",
		func(damage func(part map[string]any), want string) {
			base := GinkgoT().TempDir()
			var stdout, stderr bytes.Buffer
			var dirs []string
			for i := 0; i < 2; i++ {
				dir := filepath.Join(base, fmt.Sprint(i))
				Expect(cli.Main([]string{"run", "../scenarios/hfsm", "--explore-depth", "3", "--quiet", "--shard", fmt.Sprintf("%d/2", i), "--out", dir}, &stdout, &stderr)).To(Equal(cli.ExitOK))
				dirs = append(dirs, dir)
			}
			path := filepath.Join(dirs[1], cli.ShardFile)
			data, err := os.ReadFile(path)
			Expect(err).NotTo(HaveOccurred())
			var sh map[string]any
			Expect(json.Unmarshal(data, &sh)).To(Succeed())
			suite := sh["suites"].([]any)[0].(map[string]any)
			damage(suite)
			data, err = json.Marshal(sh)
			Expect(err).NotTo(HaveOccurred())
			Expect(os.WriteFile(path, data, 0o644)).To(Succeed())

			out := filepath.Join(base, "merged")
			Expect(cli.Main(append([]string{"report", "merge", "--out", out}, dirs...), &stdout, &stderr)).To(Equal(cli.ExitBadInput))
			Expect(stderr.String()).To(HavePrefix("simctl: "))
			Expect(stderr.String()).To(ContainSubstring(want))
			Expect(strings.Count(stderr.String(), "\n")).To(Equal(1))
			Expect(out).NotTo(BeADirectory())
		},
		Entry("a shard without its exploration", func(s map[string]any) { delete(s, "explore_parts") },
			"1/shard.json: the exploration of suite hfsm [default] is missing"),
		Entry("a shard that searched deeper", func(s map[string]any) {
			s["explore_parts"].([]any)[0].(map[string]any)["depth"] = 4.0
		}, "the explorations do not merge: the parts searched to different depths (3 and 4)"),
		Entry("configurations cut short", func(s map[string]any) {
			part := s["explore_parts"].([]any)[0].(map[string]any)
			part["nodes"] = part["nodes"].(string)[:8] // base64 of 6 bytes
		}, "not a shard result: the packed configurations are cut short or damaged"),
	)
})
