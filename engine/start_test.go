package engine_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/engine"
	et "github.com/simctl/simctl/engine/enginetest"
	"github.com/simctl/simctl/spec"
)

var _ = Describe("Start", func() {
	DescribeTable("gives a Config holding anything the Config it gives a zero one, the short way and the general",
		func(dir string) {
			s, err := spec.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			for _, m := range []*engine.Machine{s.Machine, engine.GeneralOnly(s.Machine)} {
				var clean, used engine.Config
				var cr, ur engine.Result
				et.FillLeftover(&used)
				cerr := m.StartWith(&clean, m.NewData("start"), 1500, &cr)
				uerr := m.StartWith(&used, m.NewData("start"), 1500, &ur)
				Expect(fmt.Sprint(uerr)).To(Equal(fmt.Sprint(cerr)))
				Expect(used).To(Equal(clean))
				Expect(ur.Steps).To(Equal(cr.Steps))
				Expect(ur.Effects).To(Equal(cr.Effects))
			}
		},
		bundledSuites())
})
