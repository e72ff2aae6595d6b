// Package bot checks a running bot against its machine. Client speaks
// Rasa's REST channel (POST {"sender","message"}, answered by a JSON list of
// {"recipient_id","text"}); Matcher compares the bot's messages in a turn
// with what the model says (exact, or per prompt a regex or accepted
// phrasings from bot.yaml); Player plays one conversation against the
// model and the bot side by side and reports the first turn where they
// differ; Check plays a whole set of conversations on W workers, sorts out
// divergences from bot faults, and shrinks each divergence against the live
// bot. The wall clock is read here, at the edge, to time the bot's replies;
// package engine never sees it.
package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/simctl/simctl/spec"
)

// FaultKind is what went wrong talking to the bot, as opposed to what the
// bot said.
type FaultKind string

const (
	Timeout    FaultKind = "timeout"
	Connection FaultKind = "connection"
	Status     FaultKind = "status"    // an HTTP status other than 2xx
	Malformed  FaultKind = "malformed" // not a JSON list of messages
)

// FaultKinds lists the kinds in report order.
var FaultKinds = []FaultKind{Timeout, Connection, Status, Malformed}

// Fault is a failed exchange with the bot.
type Fault struct {
	Kind FaultKind
	Msg  string
}

func (f *Fault) Error() string { return string(f.Kind) + ": " + f.Msg }

// maxReplyBytes bounds what is read of one reply.
const maxReplyBytes = 1 << 20

// Client talks to one bot: it posts user messages and events, advances
// the bot's clock and reads its state, in the shape bot.yaml's connector
// gives (Rasa's REST channel without one).
type Client struct {
	URL string
	// HTTP does the requests; its Timeout bounds one exchange.
	HTTP *http.Client
	// Conf is the suite's bot.yaml (nil: Rasa's REST channel, no state,
	// no clock).
	Conf *spec.Bot
}

// NewClient returns a client for url whose exchanges time out after
// timeout.
func NewClient(url string, timeout time.Duration) *Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	return &Client{URL: url, HTTP: &http.Client{Timeout: timeout, Transport: tr}}
}

// For returns a client like c for another bot.yaml and URL ("": c's).
func (c *Client) For(conf *spec.Bot, url string) *Client {
	x := *c
	x.Conf = conf
	if url != "" {
		x.URL = url
	}
	return &x
}

// Session is one conversation with the bot: its sender id, and the thread
// a LangGraph server gave it.
type Session struct {
	Sender string
	thread string
}

type message struct {
	RecipientID string  `json:"recipient_id"`
	Text        *string `json:"text"`
}

// Send posts one message (meta: metadata sent with it, may be nil) and
// returns the texts of the bot's reply in order (messages without text,
// such as images or buttons alone, are skipped) and how long the exchange
// took on the wall clock. The error is a *Fault.
func (c *Client) Send(ctx context.Context, s *Session, text string, meta map[string]any) ([]string, time.Duration, error) {
	start := time.Now()
	var texts []string
	var err error
	switch c.Conf.Shape() {
	case spec.ShapeSimpleRest:
		texts, err = c.simpleRest(ctx, s, text, meta)
	case spec.ShapeLangGraph:
		texts, err = c.langGraph(ctx, s, text, meta)
	default:
		body := map[string]any{"sender": s.Sender, "message": text}
		if len(meta) > 0 {
			body["metadata"] = meta
		}
		var data []byte
		if data, err = c.do(ctx, http.MethodPost, c.URL, nil, body); err == nil {
			texts, err = restTexts(data)
		}
	}
	return texts, time.Since(start), err
}

// Advance moves the conversation's clock on by ms at the bot's clock
// endpoint (meta: the variant's metadata, since a conversation may start
// with a wait); the bot answers as it answers a message (a JSON list of
// {recipient_id, text} but for a simplerest connector).
func (c *Client) Advance(ctx context.Context, s *Session, ms int64, meta map[string]any) ([]string, time.Duration, error) {
	start := time.Now()
	body := map[string]any{"sender": s.Sender, "advance_ms": ms}
	if len(meta) > 0 {
		body["metadata"] = meta
	}
	data, err := c.do(ctx, http.MethodPost, c.resolve(c.Conf.Clock.URL.Value, s), nil, body)
	if err != nil {
		return nil, time.Since(start), err
	}
	var texts []string
	if c.Conf.Shape() == spec.ShapeSimpleRest {
		texts, err = c.replyTexts(data)
	} else {
		texts, err = restTexts(data)
	}
	return texts, time.Since(start), err
}

// State reads the conversation's state as decoded JSON (with a simplerest
// connector's headers: the same bot, the same credentials).
func (c *Client) State(ctx context.Context, s *Session) (any, error) {
	u := c.Conf.State.URL.Value
	if u == "" { // LangGraph's thread state
		u = "threads/" + s.thread + "/state"
	}
	var headers map[string]string
	if c.Conf.Shape() == spec.ShapeSimpleRest {
		headers = c.Conf.Connector.HeaderMap
	}
	data, err := c.do(ctx, http.MethodGet, c.resolve(u, s), headers, nil)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, &Fault{Kind: Malformed, Msg: "the state is not JSON: " + err.Error()}
	}
	return v, nil
}

// resolve resolves ref against the bot's URL (a LangGraph server's URL is
// its root), {sender} replaced by the sender id.
func (c *Client) resolve(ref string, s *Session) string {
	ref = strings.ReplaceAll(ref, "{sender}", url.PathEscape(s.Sender))
	base := c.URL
	if c.Conf.Shape() == spec.ShapeLangGraph && !strings.HasSuffix(base, "/") {
		base += "/"
	}
	b, err := url.Parse(base)
	if err != nil {
		return ref
	}
	r, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	return b.ResolveReference(r).String()
}

// simpleRest sends a message as Botium's generic HTTP connector does: the
// body template with {{botium.conversationId}}, {{msg.messageText}} and
// {{msg.metadata.KEY}} filled in (a string that is only {{msg.metadata}}
// becomes the metadata object), the headers template likewise.
func (c *Client) simpleRest(ctx context.Context, s *Session, text string, meta map[string]any) ([]string, error) {
	conf := c.Conf.Connector
	fill := func(t string) any {
		if t == "{{msg.metadata}}" {
			if meta == nil {
				return map[string]any{}
			}
			return meta
		}
		t = strings.ReplaceAll(t, "{{botium.conversationId}}", s.Sender)
		t = strings.ReplaceAll(t, "{{msg.messageText}}", text)
		for k, v := range meta {
			t = strings.ReplaceAll(t, "{{msg.metadata."+k+"}}", fmt.Sprint(v))
		}
		return t
	}
	var body any
	if conf.BodyJSON != nil {
		body = fillJSON(conf.BodyJSON, fill)
	}
	headers := map[string]string{}
	for k, v := range conf.HeaderMap {
		headers[k] = fill(v).(string)
	}
	method := conf.Method.Value
	if method == "" {
		method = http.MethodPost
	}
	if method == http.MethodGet {
		body = nil
	}
	data, err := c.do(ctx, method, fill(c.URL).(string), headers, body)
	if err != nil {
		return nil, err
	}
	return c.replyTexts(data)
}

// fillJSON copies a decoded JSON template, filling its strings.
func fillJSON(v any, fill func(string) any) any {
	switch x := v.(type) {
	case string:
		return fill(x)
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = fillJSON(x[i], fill)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, y := range x {
			out[k] = fillJSON(y, fill)
		}
		return out
	}
	return v
}

// replyTexts finds the reply's texts by SIMPLEREST_BODY_JSONPATH (the
// messages, default the whole body) and SIMPLEREST_RESPONSE_JSONPATH (the
// text in each).
func (c *Client) replyTexts(data []byte) ([]string, error) {
	conf := c.Conf.Connector
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, &Fault{Kind: Malformed, Msg: "the reply is not JSON: " + err.Error()}
	}
	msgs := []any{v}
	if conf.BodyRe != nil {
		msgs = conf.BodyRe.Select(v)
	}
	var texts []string
	for _, m := range msgs {
		for _, t := range conf.ResponseRe.Select(m) {
			str, ok := t.(string)
			if !ok {
				return nil, &Fault{Kind: Malformed, Msg: fmt.Sprintf("%s selects a %T, not a text", conf.ResponsePath.Value, t)}
			}
			texts = append(texts, str)
		}
	}
	return texts, nil
}

// langGraph sends a message to a LangGraph server: a thread per
// conversation (POST /threads), one run per message waited for (POST
// /threads/{id}/runs/wait with the message under the input key), the
// reply found in the run's output (its values) by reply_jsonpath, by
// default $.response, else the last message's content.
func (c *Client) langGraph(ctx context.Context, s *Session, text string, meta map[string]any) ([]string, error) {
	conf := c.Conf.Connector
	if s.thread == "" {
		data, err := c.do(ctx, http.MethodPost, c.resolve("threads", s), nil, map[string]any{"metadata": map[string]any{"sender": s.Sender}})
		if err != nil {
			return nil, err
		}
		var t struct {
			ThreadID string `json:"thread_id"`
		}
		if err := json.Unmarshal(data, &t); err != nil || t.ThreadID == "" {
			return nil, &Fault{Kind: Malformed, Msg: "POST /threads: expected {\"thread_id\": ...}"}
		}
		s.thread = t.ThreadID
	}
	key, assistant := conf.InputKey.Value, conf.AssistantID.Value
	if key == "" {
		key = "user_message"
	}
	if assistant == "" {
		assistant = "agent"
	}
	body := map[string]any{"assistant_id": assistant, "input": map[string]any{key: text}}
	if len(meta) > 0 {
		body["metadata"] = meta
	}
	data, err := c.do(ctx, http.MethodPost, c.resolve("threads/"+s.thread+"/runs/wait", s), nil, body)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, &Fault{Kind: Malformed, Msg: "the run's output is not JSON: " + err.Error()}
	}
	var sel []any
	if conf.ReplyRe != nil {
		sel = conf.ReplyRe.Select(v)
	} else if m, ok := v.(map[string]any); ok {
		if r, ok := m["response"]; ok {
			sel = []any{r}
		} else if msgs, ok := m["messages"].([]any); ok && len(msgs) > 0 {
			if last, ok := msgs[len(msgs)-1].(map[string]any); ok {
				sel = []any{last["content"]}
			}
		}
	}
	var texts []string
	for _, t := range sel {
		str, ok := t.(string)
		if !ok {
			return nil, &Fault{Kind: Malformed, Msg: fmt.Sprintf("the run's reply is a %T, not a text", t)}
		}
		if str != "" {
			texts = append(texts, str)
		}
	}
	return texts, nil
}

// do makes one request with a JSON body (nil: none) and returns the
// reply's body, or a *Fault.
func (c *Client) do(ctx context.Context, method, u string, headers map[string]string, body any) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, &Fault{Kind: Connection, Msg: err.Error()}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, classify(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxReplyBytes+1))
	if err != nil {
		return nil, classify(err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &Fault{Kind: Status, Msg: fmt.Sprintf("HTTP %d", resp.StatusCode)}
	}
	if len(data) > maxReplyBytes {
		return nil, &Fault{Kind: Malformed, Msg: fmt.Sprintf("reply longer than %d bytes", maxReplyBytes)}
	}
	return data, nil
}

// restTexts reads a REST channel reply: a JSON list of {recipient_id,
// text}.
func restTexts(data []byte) ([]string, error) {
	var msgs []message
	if err := json.Unmarshal(data, &msgs); err != nil {
		return nil, &Fault{Kind: Malformed, Msg: "expected a JSON list of {recipient_id, text}: " + err.Error()}
	}
	texts := make([]string, 0, len(msgs))
	for _, m := range msgs {
		if m.Text != nil {
			texts = append(texts, *m.Text)
		}
	}
	return texts, nil
}

func classify(err error) *Fault {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return &Fault{Kind: Timeout, Msg: err.Error()}
	}
	return &Fault{Kind: Connection, Msg: err.Error()}
}

// Reachable checks, before a run, that something answers HTTP at the
// bot's address: any HTTP response will do (a GET on a POST-only endpoint
// may well be 405); only failing to connect, or no answer within the
// client's timeout, is unreachable.
func (c *Client) Reachable(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL, nil)
	if err != nil {
		return err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxReplyBytes))
	resp.Body.Close()
	return nil
}
