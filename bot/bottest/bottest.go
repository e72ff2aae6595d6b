// Package bottest serves a suite's model as a live bot over HTTP, for
// tests of simctl run --bot: the model answers each sender's messages in
// the shape of Rasa's REST channel, and a Twist may change what it says,
// a StateTwist what it reports of its state. Beside messages it takes
// Rasa's payloads (/intent{"entity": "value"}) as events without text,
// the variant to play from the metadata field "variant", a clock endpoint
// (POST /clock {"sender", "advance_ms"}) and a state endpoint
// (GET /state/{sender}: {"slots", "waiting", "state", "flow"}). SimpleRest
// and LangGraph put other JSON shapes in front of it.
package bottest

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// Twist, given a conversation's turn number (from 1), the user's message
// and the model's reply, returns what the bot says instead.
type Twist func(turn int, user string, model []string) []string

// StateTwist may change the state the bot reports after a turn.
type StateTwist func(turn int, user string, slots map[string]any)

type convo struct {
	d    *sim.Driver
	says *says
	last string
}

type says struct{ msgs []string }

func (s *says) Observe(st *eval.Step) {
	for i := range st.Result.Effects {
		if e := &st.Result.Effects[i]; e.Kind == engine.EffSay {
			s.msgs = append(s.msgs, string(st.Result.EffectText(e)))
		}
	}
}

// Bot is the model of a suite answering as a live bot.
type Bot struct {
	Suite   *spec.Suite
	Variant *spec.Variant // the default variant
	Twist   Twist
	State   StateTwist
	mu      sync.Mutex
	convos  map[string]*convo
}

// ModelBot returns a handler answering as variant v of suite s, twisted by
// twist (nil: the model as it is).
func ModelBot(s *spec.Suite, v *spec.Variant, twist Twist) http.Handler {
	return &Bot{Suite: s, Variant: v, Twist: twist}
}

type request struct {
	Sender    string         `json:"sender"`
	Message   string         `json:"message"`
	AdvanceMS int64          `json:"advance_ms"`
	Metadata  map[string]any `json:"metadata"`
}

func (b *Bot) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/state/") {
		b.state(w, strings.TrimPrefix(r.URL.Path, "/state/"))
		return
	}
	var req request
	if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, "POST {sender, message}", http.StatusBadRequest)
		return
	}
	texts, err := b.Reply(req.Sender, req.Message, req.Metadata, r.URL.Path == "/clock", req.AdvanceMS)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
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
}

// Reply plays one message (or, with clock, advanceMS of the clock) of
// sender's conversation and returns what the bot says.
func (b *Bot) Reply(sender, message string, meta map[string]any, clock bool, advanceMS int64) ([]string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c, err := b.convo(sender, meta)
	if err != nil {
		return nil, err
	}
	c.says.msgs = c.says.msgs[:0]
	c.last = message
	switch {
	case clock:
		err = c.d.Wait(advanceMS)
	case strings.HasPrefix(message, "/"):
		err = c.d.Inject(payload(c.d.M, message))
	default:
		err = c.d.User(message)
	}
	if err != nil {
		return nil, err
	}
	texts := append([]string(nil), c.says.msgs...)
	if b.Twist != nil {
		texts = b.Twist(c.d.Turn, message, texts)
	}
	return texts, nil
}

func (b *Bot) convo(sender string, meta map[string]any) (*convo, error) {
	if b.convos == nil {
		b.convos = map[string]*convo{}
	}
	if c := b.convos[sender]; c != nil {
		return c, nil
	}
	v := b.Variant
	if name, ok := meta["variant"].(string); ok {
		for _, x := range b.Suite.Variants {
			if x.Name == name {
				v = x
			}
		}
	}
	stub := sim.NewStub(b.Suite.NLU, v.Machine)
	c := &convo{d: sim.NewDriver(v.Machine, stub, stub), says: &says{}}
	c.d.Rand = rand.New(rand.NewPCG(1, 2))
	c.d.Observers = []sim.Observer{c.says}
	if err := c.d.Start(0); err != nil {
		return nil, err
	}
	b.convos[sender] = c
	return c, nil
}

// payload is Rasa's /intent{"entity": "value"} as an event with
// confidence 1.
func payload(m *engine.Machine, msg string) engine.Event {
	name, ents, _ := strings.Cut(msg[1:], "{")
	id, _ := m.IntentID(name)
	ev := engine.Event{Kind: engine.UserEvent, Intent: id, Confidence: 1}
	var e map[string]string
	if ents != "" && json.Unmarshal([]byte("{"+ents), &e) == nil {
		for k, v := range e {
			if eid, ok := m.EntityID(k); ok {
				ev.AddEntity(eid, engine.TextValue(v))
			}
		}
	}
	return ev
}

// Snapshot is a conversation's state as the state endpoint reports it.
func (b *Bot) Snapshot(sender string) map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.convos[sender]
	if c == nil {
		return nil
	}
	m, cfg := c.d.M, &c.d.Cfg
	slots := map[string]any{}
	for _, name := range m.Slots() {
		id, _ := m.SlotID(name)
		if v := cfg.Slots[id]; !v.IsEmpty() {
			slots[name] = v.String()
		} else {
			slots[name] = nil
		}
	}
	if b.State != nil {
		b.State(c.d.Turn, c.last, slots)
	}
	out := map[string]any{"slots": slots, "state": m.StateName(cfg.State), "waiting": nil, "flow": nil}
	if cfg.Waiting != engine.NoID {
		out["waiting"] = m.SlotName(cfg.Waiting)
	}
	if cfg.FlowDepth > 0 {
		out["flow"] = m.FlowName(cfg.Flow())
	}
	return out
}

func (b *Bot) state(w http.ResponseWriter, sender string) {
	snap := b.Snapshot(sender)
	if snap == nil {
		http.NotFound(w, nil)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(snap)
}

// Server starts ModelBot on a loopback httptest server.
func Server(s *spec.Suite, v *spec.Variant, twist Twist) *httptest.Server {
	return httptest.NewServer(ModelBot(s, v, twist))
}

// SimpleRest answers in a JSON shape of no known bot, for tests of the
// generic connector: POST {"user": {"id"}, "say": text, "ctx": metadata}
// with header X-Key: key, answered {"answer": {"lines": [{"t": text}]}};
// GET /who/{id} answers {"memory": slots}.
func SimpleRest(b *Bot, key string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Key") != key {
			http.Error(w, "bad key", http.StatusForbidden)
			return
		}
		if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/who/") {
			snap := b.Snapshot(strings.TrimPrefix(r.URL.Path, "/who/"))
			json.NewEncoder(w).Encode(map[string]any{"memory": snap["slots"]})
			return
		}
		var req struct {
			User struct{ ID string } `json:"user"`
			Say  string              `json:"say"`
			Ctx  map[string]any      `json:"ctx"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		texts, err := b.Reply(req.User.ID, req.Say, req.Ctx, false, 0)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		lines := []map[string]string{}
		for _, t := range texts {
			lines = append(lines, map[string]string{"t": t})
		}
		json.NewEncoder(w).Encode(map[string]any{"answer": map[string]any{"lines": lines}})
	})
}

// LangGraph speaks the part of LangGraph's server API simctl uses: POST
// /threads, POST /threads/{id}/runs/wait {"assistant_id", "input":
// {"user_message"}} answered with the graph's values ({"response",
// ...slots}), GET /threads/{id}/state answered {"values": slots}.
func LangGraph(b *Bot, assistant string) http.Handler {
	var mu sync.Mutex
	n := 0
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		switch {
		case r.Method == http.MethodPost && len(parts) == 1 && parts[0] == "threads":
			mu.Lock()
			n++
			id := "thread-" + itoa(n)
			mu.Unlock()
			json.NewEncoder(w).Encode(map[string]any{"thread_id": id, "metadata": map[string]any{}})
		case r.Method == http.MethodPost && len(parts) == 4 && parts[0] == "threads" && parts[2] == "runs" && parts[3] == "wait":
			var req struct {
				AssistantID string `json:"assistant_id"`
				Input       struct {
					UserMessage string `json:"user_message"`
				} `json:"input"`
			}
			if json.NewDecoder(r.Body).Decode(&req) != nil || req.AssistantID != assistant {
				http.Error(w, "unknown assistant", http.StatusNotFound)
				return
			}
			texts, err := b.Reply(parts[1], req.Input.UserMessage, nil, false, 0)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			vals := b.Snapshot(parts[1])["slots"].(map[string]any)
			vals["response"] = strings.Join(texts, "\n")
			json.NewEncoder(w).Encode(vals)
		case r.Method == http.MethodGet && len(parts) == 3 && parts[0] == "threads" && parts[2] == "state":
			snap := b.Snapshot(parts[1])
			if snap == nil {
				http.NotFound(w, r)
				return
			}
			json.NewEncoder(w).Encode(map[string]any{"values": snap["slots"], "next": []string{}})
		case r.Method == http.MethodGet:
			w.WriteHeader(http.StatusOK)
		default:
			http.NotFound(w, r)
		}
	})
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
