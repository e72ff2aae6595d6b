package bot_test

import (
	"context"
	"slices"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/simctl/simctl/bot"
	"github.com/simctl/simctl/bot/bottest"
	"github.com/simctl/simctl/spec"
)

var _ = Describe("Player.Shrink", func() {
	It("simplifies a divergence against the bot: waits deleted, the words of every turn as simple as still diverge", func(ctx SpecContext) {
		s, err := spec.Load("../scenarios/formfill")
		Expect(err).NotTo(HaveOccurred())
		v := s.Variants[0]
		// The planted bug: a budget the form takes (the model asks for the
		// postcode next) is answered with something else than the model's
		// reply.
		srv := bottest.Server(s, v, func(_ int, user string, model []string) []string {
			if _, err := strconv.ParseFloat(user, 64); err == nil && slices.Contains(model, "¿Cuál es tu código postal?") {
				return []string{"Presupuesto anotado."}
			}
			return model
		})
		DeferCleanup(srv.Close)
		conf, err := spec.LoadBot("bot.yaml", []byte("clock: {url: /clock}\n"), s.Variants)
		Expect(err).NotTo(HaveOccurred())
		p := &bot.Player{Suite: s, Variant: v, Client: bot.NewClient(srv.URL+"/webhooks/rest/webhook", 5*time.Second).For(conf, ""),
			Match: bot.NewMatcher(conf), Seed: 1, Prefix: "shrink"}
		steps := bot.Users("Ana María García", "ana.maria.garcia@example.com", "+34 600 123 456")
		steps = append(steps, bot.Step{Kind: bot.Wait, WaitMS: 1000})
		steps = append(steps, bot.Users("https://www.example.com", "25000")...)
		r := p.Play(context.Background(), &bot.Conversation{Source: bot.Generated, Name: "generated-0", Steps: steps})
		Expect(r.Verdict).To(Equal(bot.Diverges), r.Why)
		Expect(r.At).To(Equal(5))

		sh := p.Shrink(ctx, r, 200)
		Expect(sh.Verdict).To(Equal(bot.Diverges))
		Expect(sh.From).To(Equal(6))
		var said []string
		for _, t := range sh.Turns {
			Expect(t.Step.Kind).To(Equal(bot.Say), "the wait is gone")
			said = append(said, t.User)
		}
		// The budget that triggers the bug shrinks to the smallest number,
		// the name to the shortest value the form takes; the model knows
		// no shorter email, phone or address the form accepts.
		Expect(said).To(Equal([]string{"7", "ana.maria.garcia@example.com", "+34 600 123 456", "https://www.example.com", "0"}))
	}, SpecTimeout(60*time.Second))
})
