// Package bottest serves a suite's model as a live bot over HTTP, in the
// shape of Rasa's REST channel, for tests of simctl run --bot: the model
// answers each sender's messages, and a Twist may change what it says.
package bottest

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// Twist, given a conversation's turn number (from 1), the user's message
// and the model's reply, returns what the bot says instead.
type Twist func(turn int, user string, model []string) []string

type convo struct {
	d    *sim.Driver
	says *says
}

type says struct{ msgs []string }

func (s *says) Observe(st *eval.Step) {
	for i := range st.Result.Effects {
		if e := &st.Result.Effects[i]; e.Kind == engine.EffSay {
			s.msgs = append(s.msgs, string(st.Result.EffectText(e)))
		}
	}
}

// ModelBot returns a handler answering as variant v of suite s, twisted by
// twist (nil: the model as it is).
func ModelBot(s *spec.Suite, v *spec.Variant, twist Twist) http.Handler {
	var mu sync.Mutex
	convos := map[string]*convo{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Sender, Message string }
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "POST {sender, message}", http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		c := convos[req.Sender]
		if c == nil {
			stub := sim.NewStub(s.NLU, v.Machine)
			c = &convo{d: sim.NewDriver(v.Machine, stub, stub), says: &says{}}
			c.d.Rand = rand.New(rand.NewPCG(1, 2))
			c.d.Observers = []sim.Observer{c.says}
			if err := c.d.Start(0); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			convos[req.Sender] = c
		}
		c.says.msgs = c.says.msgs[:0]
		if err := c.d.User(req.Message); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		texts := append([]string(nil), c.says.msgs...)
		if twist != nil {
			texts = twist(c.d.Turn, req.Message, texts)
		}
		type msg struct {
			RecipientID string `json:"recipient_id"`
			Text        string `json:"text"`
		}
		out := make([]msg, len(texts))
		for i, t := range texts {
			out[i] = msg{RecipientID: req.Sender, Text: t}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	})
}

// Server starts ModelBot on a loopback httptest server.
func Server(s *spec.Suite, v *spec.Variant, twist Twist) *httptest.Server {
	return httptest.NewServer(ModelBot(s, v, twist))
}
