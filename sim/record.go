package sim

// Recording a cassette from a live NLU server. This is the one place in
// simctl where the wall clock matters: a request has a timeout, retries
// wait, and the latency of each reply is measured. None of it reaches a
// conversation, which only sees the reply.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/spec"
)

// maxReplySize bounds the body of one server reply.
const maxReplySize = 1 << 20

// HTTPNLU is a client of an NLU server that speaks Rasa's HTTP API: it
// POSTs {"text": ...} to URL (Rasa's /model/parse) and reads a JSON reply
// with text, intent {name, confidence}, entities and intent_ranking.
type HTTPNLU struct {
	URL string
	// Timeout bounds each attempt (0: 5s).
	Timeout time.Duration
	// Retries is the number of attempts after the first one that a
	// connection failure, a timeout or a 5xx/429 status gets.
	Retries int
	// Backoff is the wait before the first retry; it doubles for each next
	// one (0: 200ms). There is no jitter: the waits are deterministic.
	Backoff time.Duration
	// Client defaults to a client without a global timeout (each attempt
	// has its own).
	Client *http.Client
	// Ctx, if set, ends the attempt under way and the waits between
	// retries when it is cancelled (simctl record cancels it on SIGINT or
	// SIGTERM); nil: never.
	Ctx context.Context
	// Warn, if set, is told once of each content type other than JSON
	// that a reply came with; such a reply is still read as JSON.
	Warn   func(msg string)
	warned map[string]bool
}

// errReplyTooLarge is a reply over maxReplySize: the server answered, so
// asking again would only get the same answer.
var errReplyTooLarge = fmt.Errorf("its reply is larger than %d bytes, the most simctl reads", maxReplySize)

// ServerError is a failed exchange with the NLU server, after retries.
type ServerError struct {
	URL      string
	Text     string
	Attempts int
	Msg      string
}

func (e *ServerError) Error() string {
	tries := "1 attempt"
	if e.Attempts != 1 {
		tries = fmt.Sprintf("%d attempts", e.Attempts)
	}
	return fmt.Sprintf("nlu server %s, utterance %q: %s (%s)", e.URL, e.Text, e.Msg, tries)
}

// Parse sends text to the server and returns its reply and how long the
// successful attempt took, rounded to the millisecond.
func (h *HTTPNLU) Parse(text string) (spec.ParseReply, int64, error) {
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	backoff := h.Backoff
	if backoff <= 0 {
		backoff = 200 * time.Millisecond
	}
	client := h.Client
	if client == nil {
		client = http.DefaultClient
	}
	body, _ := json.Marshal(map[string]string{"text": text})
	fail := func(attempts int, msg string) error {
		return &ServerError{URL: h.URL, Text: text, Attempts: attempts, Msg: msg}
	}
	ctx := h.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	var lastMsg string
	attempts := 0
	for try := 0; try <= h.Retries; try++ {
		if try > 0 {
			wait := time.NewTimer(backoff << (try - 1))
			select {
			case <-ctx.Done():
				wait.Stop()
				return spec.ParseReply{}, 0, fail(attempts, "interrupted")
			case <-wait.C:
			}
		}
		attempts++
		data, status, ms, err := h.post(ctx, client, body, timeout)
		switch {
		case ctx.Err() != nil:
			return spec.ParseReply{}, 0, fail(attempts, "interrupted")
		case errors.Is(err, errReplyTooLarge):
			return spec.ParseReply{}, 0, fail(attempts, err.Error())
		case err != nil:
			lastMsg = describeNetError(err, timeout)
			continue
		case status == http.StatusTooManyRequests || status >= 500:
			lastMsg = fmt.Sprintf("answered HTTP %d %s", status, http.StatusText(status))
			continue
		case status < 200 || status > 299:
			return spec.ParseReply{}, 0, fail(attempts, fmt.Sprintf("answered HTTP %d %s", status, http.StatusText(status)))
		}
		reply, derr := spec.DecodeReply(data, text)
		if derr != nil {
			return spec.ParseReply{}, 0, fail(attempts, "malformed reply: "+derr.Error())
		}
		reply.Text = text
		return reply, ms, nil
	}
	return spec.ParseReply{}, 0, fail(attempts, lastMsg)
}

func (h *HTTPNLU) post(parent context.Context, client *http.Client, body []byte, timeout time.Duration) ([]byte, int, int64, error) {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return nil, 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxReplySize+1))
	elapsed := time.Since(start)
	if err != nil {
		return nil, 0, 0, err
	}
	if len(data) > maxReplySize {
		return nil, resp.StatusCode, 0, errReplyTooLarge
	}
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		h.checkContentType(resp.Header.Get("Content-Type"))
	}
	return data, resp.StatusCode, (elapsed + time.Millisecond/2).Milliseconds(), nil
}

// checkContentType warns, once per content type, of a reply that does not
// say it is JSON (an HTML error page from a proxy, say): it may still
// decode, but the server is probably not the NLU endpoint meant.
func (h *HTTPNLU) checkContentType(ct string) {
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		return
	}
	if h.Warn == nil || h.warned[ct] {
		return
	}
	if h.warned == nil {
		h.warned = map[string]bool{}
	}
	h.warned[ct] = true
	what := fmt.Sprintf("content type %q", ct)
	if ct == "" {
		what = "no content type"
	}
	h.Warn(fmt.Sprintf("nlu server %s answered with %s, not application/json; the reply was read as JSON all the same", h.URL, what))
}

// describeNetError says in a few words why an attempt got no reply.
func describeNetError(err error, timeout time.Duration) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return fmt.Sprintf("no reply within %s", timeout)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "unreachable: connection refused"
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET):
		return "closed the connection without a complete reply"
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return "unreachable: " + oneLine(oe.Error())
	}
	return "unreachable: " + oneLine(err.Error())
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Recorder records a cassette while conversations run: each utterance
// that has no record yet (for its text and the state it is said in) is
// sent to the server, and the reply both drives the conversation and is
// kept. Utterances with a record are answered from it without a request,
// so that the conversation goes where a replay of the cassette will go.
// The first server error stops the recording: every later Parse fails.
type Recorder struct {
	Server *HTTPNLU
	n      *spec.NLU
	recs   map[recKey]*spec.CassetteRecord
	kept   int
	// Requests counts the requests sent (retries not counted).
	Requests int
	err      error
}

type recKey struct{ text, state string }

// NewRecorder starts a recording for the suite with nlu.yaml n (nil if
// none), keeping the records of old (nil: start empty, as --overwrite).
func NewRecorder(server *HTTPNLU, n *spec.NLU, old *spec.Cassette) *Recorder {
	r := &Recorder{Server: server, n: n, recs: map[recKey]*spec.CassetteRecord{}}
	if old != nil {
		for i := range old.Records {
			rec := old.Records[i]
			r.recs[recKey{rec.Text, rec.State}] = &rec
			r.kept++
		}
	}
	return r
}

// Err is the error that stopped the recording, if any.
func (r *Recorder) Err() error { return r.err }

// Kept is the number of old records the recording started with.
func (r *Recorder) Kept() int { return r.kept }

// For returns the recording NLU for machine m; use it as
// NLUOptions.Custom.
func (r *Recorder) For(m *engine.Machine, _ *Stub) NLU {
	return &recordingNLU{r: r, m: m, fallback: FallbackIntent(r.n, m)}
}

// Records returns every record, old and new, sorted by state then text.
func (r *Recorder) Records() []spec.CassetteRecord {
	out := make([]spec.CassetteRecord, 0, len(r.recs))
	for _, rec := range r.recs {
		out = append(out, *rec)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].State != out[j].State {
			return out[i].State < out[j].State
		}
		return out[i].Text < out[j].Text
	})
	return out
}

// Latencies returns the latencies of the records, as Records orders them.
func (r *Recorder) Latencies() []int64 {
	recs := r.Records()
	out := make([]int64, len(recs))
	for i := range recs {
		out[i] = recs[i].LatencyMS
	}
	return out
}

type recordingNLU struct {
	r        *Recorder
	m        *engine.Machine
	fallback engine.IntentID
}

func (n *recordingNLU) Parse(text string, state engine.StateID, ev *engine.Event) error {
	r := n.r
	if r.err != nil {
		return r.err
	}
	key := recKey{text, n.m.StateName(state)}
	rec, ok := r.recs[key]
	if !ok {
		r.Requests++
		reply, ms, err := r.Server.Parse(text)
		if err == nil {
			if cerr := spec.CheckReply(&reply, n.m); cerr != nil {
				err = fmt.Errorf("nlu server %s, utterance %q: reply does not fit the machine: %w", r.Server.URL, text, cerr)
			}
		}
		if err != nil {
			r.err = err
			return err
		}
		rec = &spec.CassetteRecord{State: key.state, ParseReply: reply, LatencyMS: ms}
		r.recs[key] = rec
	}
	EventFromReply(n.m, &rec.ParseReply, text, n.fallback, ev)
	return nil
}
