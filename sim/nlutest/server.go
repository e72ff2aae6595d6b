// Package nlutest runs, on loopback, an NLU server that answers like Rasa's
// POST /model/parse: from a table, or from a suite's stub rules, with
// delays and faults on demand. Tests of recording (simctl record) use it;
// it is a test helper, named after what it helps.
package nlutest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// ParsePath is where the server answers, as Rasa does.
const ParsePath = "/model/parse"

// Fault is what the server does to a request instead of (or before)
// answering it normally.
type Fault struct {
	// Delay waits before answering (the reply, or the fault below).
	Delay time.Duration
	// Status answers with this HTTP status and a JSON error body.
	Status int
	// Body answers status 200 with this body instead of the reply.
	Body string
	// ContentType is the Content-Type of a Body (default application/json).
	ContentType string
	// Drop takes over the connection and closes it without a word.
	Drop bool
}

// Server is an NLU server on loopback.
type Server struct {
	// URL is the parse endpoint to give simctl record --nlu-url.
	URL string

	srv    *httptest.Server
	answer func(text string) spec.ParseReply

	mu       sync.Mutex
	faults   []Fault
	always   *Fault
	delay    time.Duration
	requests []string
}

// New starts a server that answers text with answer(text).
func New(answer func(text string) spec.ParseReply) *Server {
	s := &Server{answer: answer}
	mux := http.NewServeMux()
	mux.HandleFunc(ParsePath, s.handle)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL + ParsePath
	return s
}

// Table starts a server that answers from a table; text not in it gets a
// reply without an intent (not understood).
func Table(replies map[string]spec.ParseReply) *Server {
	return New(func(text string) spec.ParseReply {
		if r, ok := replies[text]; ok {
			r.Text = text
			return r
		}
		return spec.ParseReply{Text: text, Entities: []spec.ReplyEntity{}}
	})
}

// FromStub starts a server that answers as the stub rules of a suite do
// (sim.Stub.Reply), so that what it records replays like the stub.
func FromStub(stub *sim.Stub, m *engine.Machine) *Server {
	return New(func(text string) spec.ParseReply { return stub.Reply(m, text) })
}

// Close shuts the server down.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Fail makes the next n requests meet fault f (after the faults already
// queued).
func (s *Server) Fail(f Fault, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 0; i < n; i++ {
		s.faults = append(s.faults, f)
	}
}

// Always makes every request meet fault f once the queued ones are used.
func (s *Server) Always(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.always = &f
}

// Delay makes every normal answer wait d.
func (s *Server) Delay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// Requests returns the texts of the requests received, in order.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, `{"error": "method not allowed"}`, http.StatusMethodNotAllowed)
		return
	}
	var req struct {
		Text *string `json:"text"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Text == nil {
		http.Error(w, `{"error": "expected {\"text\": ...}"}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, *req.Text)
	var f *Fault
	if len(s.faults) > 0 {
		f = &s.faults[0]
		s.faults = s.faults[1:]
	} else if s.always != nil {
		f = s.always
	}
	delay := s.delay
	s.mu.Unlock()
	if f != nil {
		delay = f.Delay
	}
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	switch {
	case f != nil && f.Drop:
		hj, ok := w.(http.Hijacker)
		if !ok {
			panic("nlutest: the response writer cannot be hijacked")
		}
		conn, _, err := hj.Hijack()
		if err == nil {
			conn.Close()
		}
		return
	case f != nil && f.Status != 0:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.Status)
		w.Write([]byte(`{"error": "` + http.StatusText(f.Status) + `"}`))
		return
	case f != nil && f.Body != "":
		ct := f.ContentType
		if ct == "" {
			ct = "application/json"
		}
		w.Header().Set("Content-Type", ct)
		w.Write([]byte(f.Body))
		return
	}
	reply := s.answer(*req.Text)
	if reply.Entities == nil {
		reply.Entities = []spec.ReplyEntity{}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(reply)
}
