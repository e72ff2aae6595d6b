package bot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/simctl/simctl/bot"
	"github.com/simctl/simctl/bot/bottest"
	"github.com/simctl/simctl/spec"
)

// happy fills formfill's form (variant completo) and says thanks, which
// the completion policy escalates: 7 turns.
var happy = []string{"Mi nombre es Juan", "juan@ejemplo.com", "+34 600 123 456", "https://www.ejemplo.com", "1500", "28013", "Gracias"}

// canned answers every message with the reply recorded for it, without a
// network or a server.
type canned map[string][]byte

func (c canned) RoundTrip(r *http.Request) (*http.Response, error) {
	var req struct{ Message string }
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		return nil, err
	}
	return &http.Response{StatusCode: 200, Body: io.NopCloser(bytes.NewReader(c[req.Message])), Request: r}, nil
}

// BenchmarkTurn measures what simctl adds to a turn against a live bot:
// "play" is Player.Play (the model's step, the exchange, the comparison),
// "raw" the same exchanges alone, against the same loopback bot (which
// answers with the model); "canned" is Player.Play against replies
// recorded beforehand and returned by the client's transport, without
// network or server: simctl's own work per turn.
func BenchmarkTurn(b *testing.B) {
	s, err := spec.Load("../scenarios/formfill")
	if err != nil {
		b.Fatal(err)
	}
	v := s.Variants[0]
	srv := bottest.Server(s, v, nil)
	defer srv.Close()
	client := bot.NewClient(srv.URL, 5*time.Second)
	ctx := context.Background()
	// One player for every run of the sub-benchmark: its sender ids must
	// never repeat against the same bot.
	p := &bot.Player{Suite: s, Variant: v, Client: client, Match: bot.NewMatcher(nil), Prefix: "bench-play"}
	raw := 0
	b.Run("play", func(b *testing.B) {
		c := &bot.Conversation{Source: bot.Scripted, Name: "happy", Steps: bot.Users(happy...)}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if r := p.Play(ctx, c); r.Verdict != bot.Conforms {
				b.Fatalf("got %s (%s), want conforms: %+v", r.Verdict, r.Why, r.Turns)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(happy)), "ns/turn")
	})
	b.Run("raw", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			raw++
			sender := fmt.Sprintf("bench-raw-%d", raw)
			for _, u := range happy {
				if _, _, err := client.Send(ctx, &bot.Session{Sender: sender}, u, nil); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(happy)), "ns/turn")
	})
	b.Run("canned", func(b *testing.B) {
		replies := canned{}
		r := p.Play(ctx, &bot.Conversation{Source: bot.Scripted, Name: "happy", Steps: bot.Users(happy...)})
		for _, t := range r.Turns {
			msgs := []map[string]string{}
			for _, x := range t.Bot {
				msgs = append(msgs, map[string]string{"recipient_id": "u", "text": x})
			}
			replies[t.Text], _ = json.Marshal(msgs)
		}
		cp := &bot.Player{Suite: s, Variant: v, Client: &bot.Client{URL: "http://canned.invalid/", HTTP: &http.Client{Transport: replies}},
			Match: bot.NewMatcher(nil), Prefix: "bench-canned"}
		c := &bot.Conversation{Source: bot.Scripted, Name: "happy", Steps: bot.Users(happy...)}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if r := cp.Play(ctx, c); r.Verdict != bot.Conforms {
				b.Fatalf("got %s (%s), want conforms", r.Verdict, r.Why)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(happy)), "ns/turn")
	})
}
