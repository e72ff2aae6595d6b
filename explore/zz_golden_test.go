package explore_test

import (
	"fmt"
	"math/rand"
	"os"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/simctl/simctl/explore"
	"github.com/simctl/simctl/spec"
)

func zzDescribe(res *explore.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "gen=%d distinct=%d depth=%d queue=%d complete=%v stopped=%q\n", res.Generated, res.Distinct, res.Depth, res.Queue, res.Complete, res.Stopped)
	for _, f := range res.Findings {
		fmt.Fprintf(&b, "  %s node=%d path=%d known=%v msg=%s\n", f.Kind, f.Node, res.PathLen(f.Node), f.Known != "", f.Violation.Msg)
	}
	fmt.Fprintf(&b, "  cov=%v\n  gt=%v\n  gf=%v\n  cover=%v\n", res.Coverage.Trans, res.Coverage.GuardTrue, res.Coverage.GuardFalse, res.Cover())
	return b.String()
}

var _ = It("zz golden dump", func() {
	out := os.Getenv("ZZ_GOLDEN")
	if out == "" {
		Skip("no ZZ_GOLDEN")
	}
	var b strings.Builder
	for _, c := range []struct {
		dir   string
		depth int
	}{{seedSuite("soni"), 4}, {seedSuite("bench-soni"), 6}, {seedSuite("thea"), 3}, {seedSuite("formfill"), 2}, {seedSuite("hfsm"), 8}, {"testdata/planted", 10}} {
		s := load(c.dir)
		for _, v := range s.Variants {
			res, _ := explore.Explore(s, v, explore.Options{Depth: c.depth})
			fmt.Fprintf(&b, "%s %s d%d: %s", c.dir, v.Name, c.depth, zzDescribe(res))
		}
	}
	for name, y := range map[string]string{"chain50": chainYAML(50), "grid4x50": gridYAML(4, 50), "counters": countersYAML(30), "fork": forkYAML} {
		s := suiteOf(y)
		res := search(s, explore.Options{Depth: 1000})
		fmt.Fprintf(&b, "%s: %s", name, zzDescribe(res))
	}
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 80; i++ {
		c := machineCase{Seed: r.Int63n(1 << 40), Depth: 2 + r.Intn(4)}
		s, _ := c.suite()
		res, err := explore.Explore(s, s.Variants[0], explore.Options{Depth: c.Depth})
		if err != nil {
			fmt.Fprintf(&b, "%v: %v\n", c, err)
			continue
		}
		fmt.Fprintf(&b, "%v: %s", c, zzDescribe(res))
	}
	os.WriteFile(out, []byte(b.String()), 0o644)
	_ = spec.MachineFile
})
