package sim_test

import (
	"net"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/sim/nlutest"
	"github.com/simctl/simctl/spec"
)

var _ = Describe("the NLU server client", Label("race"), func() {
	var server *nlutest.Server
	var client *sim.HTTPNLU

	BeforeEach(func() {
		server = nlutest.Table(map[string]spec.ParseReply{
			"hello": {Intent: spec.ReplyIntent{Name: "greet", Confidence: 0.93}},
		})
		DeferCleanup(server.Close)
		client = &sim.HTTPNLU{URL: server.URL, Timeout: 2 * time.Second, Retries: 2, Backoff: time.Millisecond}
	})

	It("posts the text and reads the reply, with the latency it measured", func() {
		server.Delay(20 * time.Millisecond)
		r, ms, err := client.Parse("hello")
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Text).To(Equal("hello"))
		Expect(r.Intent).To(Equal(spec.ReplyIntent{Name: "greet", Confidence: 0.93}))
		Expect(ms).To(BeNumerically(">=", 20))
		Expect(ms).To(BeNumerically("<", 2000))
		Expect(server.Requests()).To(Equal([]string{"hello"}))
	})

	It("retries a failed request with backoff and takes the reply that comes", func() {
		server.Fail(nlutest.Fault{Status: 503}, 1)
		server.Fail(nlutest.Fault{Drop: true}, 1)
		r, _, err := client.Parse("hello")
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Intent.Name).To(Equal("greet"))
		Expect(server.Requests()).To(HaveLen(3))
	})

	type faultCase struct {
		fault    nlutest.Fault
		want     string
		requests int
	}

	DescribeTable("gives one line naming the server, the utterance and what went wrong",
		func(c faultCase) {
			server.Always(c.fault)
			client.Timeout = 100 * time.Millisecond
			_, _, err := client.Parse("hello")
			Expect(err).To(MatchError(`nlu server ` + server.URL + `, utterance "hello": ` + c.want))
			Expect(server.Requests()).To(HaveLen(c.requests))
		},
		Entry("a server that does not answer in time, after retries", faultCase{
			fault: nlutest.Fault{Delay: time.Second}, want: "no reply within 100ms (3 attempts)", requests: 3}),
		Entry("an HTTP error status, after retries", faultCase{
			fault: nlutest.Fault{Status: 500}, want: "answered HTTP 500 Internal Server Error (3 attempts)", requests: 3}),
		Entry("a client error status, not retried", faultCase{
			fault: nlutest.Fault{Status: 404}, want: "answered HTTP 404 Not Found (1 attempt)", requests: 1}),
		Entry("a dropped connection, after retries", faultCase{
			fault: nlutest.Fault{Drop: true}, want: "closed the connection without a complete reply (3 attempts)", requests: 3}),
		Entry("malformed JSON", faultCase{
			fault: nlutest.Fault{Body: `{"intent": {"name": "greet", "confidence": 0.9`}, want: "malformed reply: invalid JSON: unexpected end of line (1 attempt)", requests: 1}),
		Entry("a reply without an intent", faultCase{
			fault: nlutest.Fault{Body: `{"text": "hello", "entities": []}`}, want: `malformed reply: missing required field "intent" (1 attempt)`, requests: 1}),
		Entry("a confidence outside [0,1]", faultCase{
			fault: nlutest.Fault{Body: `{"intent": {"name": "greet", "confidence": 1.3}}`}, want: "malformed reply: intent.confidence: 1.3 is outside [0,1] (1 attempt)", requests: 1}),
	)

	It("says a server is unreachable when nothing listens", func() {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		addr := l.Addr().String()
		Expect(l.Close()).To(Succeed())
		client.URL = "http://" + addr + "/model/parse"
		_, _, err = client.Parse("hello")
		Expect(err).To(MatchError(`nlu server http://` + addr + `/model/parse, utterance "hello": unreachable: connection refused (3 attempts)`))
	})

	It("stops a recording at the first server error, and keeps the old records without asking the server again", func() {
		s := load("../scenarios/bench-soni")
		c := recordFromStub(s)
		rec := sim.NewRecorder(client, s.NLU, c)
		r := sim.RunScenario(s, scenario(s, "happy"), sim.Options{NLU: sim.NLUOptions{Custom: rec.For}})
		Expect(rec.Err()).NotTo(HaveOccurred())
		Expect(r.Status).To(Equal(sim.Pass))
		Expect(server.Requests()).To(BeEmpty(), "every utterance of happy has a record")
		Expect(rec.Records()).To(HaveLen(len(c.Records)))

		server.Always(nlutest.Fault{Status: 500})
		sc := *scenario(s, "happy")
		sc.Turns = append([]spec.Turn{{User: &spec.Str{Value: "something new"}}}, sc.Turns...)
		sim.RunScenario(s, &sc, sim.Options{NLU: sim.NLUOptions{Custom: rec.For}})
		Expect(rec.Err()).To(MatchError(ContainSubstring(`utterance "something new": answered HTTP 500`)))
		Expect(rec.Records()).To(HaveLen(len(c.Records)), "nothing is added by a failed request")
	})
})
