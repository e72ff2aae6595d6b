package reports_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/reports"
)

// sweptRun is the fixture run with a noise sweep of greeter at two rates.
func sweptRun() *reports.Run {
	run := fixtureRun()
	run.Generate = 10
	run.Suites[1].Noise = []reports.NoisePoint{
		{Variant: "default", Rate: 0, Metrics: generate.Metrics{Suite: "greeter", Variant: "default", Conversations: 10, Successes: 8,
			Escalations: 1, Cancellations: 2, Violating: 1, Violations: 2},
			Goals: []generate.GoalTally{{Goal: "hello", Trials: 6, Successes: 6}, {Goal: "bye", Trials: 4, Successes: 2}}},
		{Variant: "default", Rate: 0.2, Metrics: generate.Metrics{Suite: "greeter", Variant: "default", Conversations: 10, Successes: 5},
			Goals: []generate.GoalTally{{Goal: "hello", Trials: 6, Successes: 4}, {Goal: "bye", Trials: 4, Successes: 1}}},
	}
	return run
}

var _ = Describe("noise sweep reports", func() {
	It("writes a row per suite, variant and rate with pass^k, empty where no goal was drawn k times", func() {
		var b bytes.Buffer
		Expect(reports.WriteNoiseCSV(&b, sweptRun())).To(Succeed())
		Expect(b.String()).To(Equal(
			"suite,variant,noise,conversations,successes,success_rate,escalations,escalation_rate,cancellations,cancellation_rate,violating_conversations,violations,pass^1,pass^2,pass^3,pass^4,pass^5,pass^6,pass^7,pass^8\n" +
				// Rate 0: pass^2 = (C(6,2)/C(6,2) + C(2,2)/C(4,2)) / 2 = (1 + 1/6) / 2; pass^5 and pass^6: only hello
				// has 5 and 6 trials; no goal has 7. Rate 0.2: pass^4 = (C(4,4)/C(6,4) + C(1,4)/C(4,4)) / 2 = (1/15) / 2.
				"greeter,default,0,10,8,0.8,1,0.1,2,0.2,1,2,0.75,0.5833,0.5,0.5,1,1,,\n" +
				"greeter,default,0.2,10,5,0.5,0,0,0,0,0,0,0.4583,0.2,0.1,0.0333,0,0,,\n"))
	})

	It("puts the rows into summary.json, pass^k as a list with nulls", func() {
		var b bytes.Buffer
		Expect(reports.WriteSummaryJSON(&b, sweptRun())).To(Succeed())
		var sum struct {
			Suites []struct {
				Name  string            `json:"name"`
				Noise []json.RawMessage `json:"noise"`
			} `json:"suites"`
		}
		Expect(json.Unmarshal(b.Bytes(), &sum)).To(Succeed())
		Expect(sum.Suites[0].Noise).To(BeEmpty())
		Expect(sum.Suites[1].Noise).To(HaveLen(2))
		Expect(string(sum.Suites[1].Noise[0])).To(ContainSubstring(`"pass_hat_k": [
            0.75,
            0.5833,
            0.5,
            0.5,
            1,
            1,
            null,
            null
          ]`))
	})

	It("draws success against the error rate as SVG, the same bytes every time, and nothing without a sweep", func() {
		svg, err := reports.NoiseChartSVG(sweptRun())
		Expect(err).NotTo(HaveOccurred())
		Expect(string(svg)).To(HavePrefix("<?xml"))
		Expect(string(svg)).To(ContainSubstring("<svg"))
		Expect(string(svg)).To(ContainSubstring("greeter"))
		Expect(string(svg)).To(ContainSubstring("NLU error rate"))
		again, err := reports.NoiseChartSVG(sweptRun())
		Expect(err).NotTo(HaveOccurred())
		Expect(again).To(Equal(svg))
		none, err := reports.NoiseChartSVG(fixtureRun())
		Expect(err).NotTo(HaveOccurred())
		Expect(none).To(BeNil())
	})

	It("is written by WriteAll with a sweep, and removed by a later run without one", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "out")
		Expect(reports.WriteAll(dir, sweptRun())).To(Succeed())
		data, err := os.ReadFile(filepath.Join(dir, reports.NoiseCSV))
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.Count(string(data), "\n")).To(Equal(3))
		Expect(reports.WriteAll(dir, fixtureRun())).To(Succeed())
		Expect(filepath.Join(dir, reports.NoiseCSV)).NotTo(BeAnExistingFile())
	})
})
