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
	"time"
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

// Client posts user messages to a bot in the shape of Rasa's REST channel.
type Client struct {
	URL string
	// HTTP does the requests; its Timeout bounds one exchange.
	HTTP *http.Client
}

// NewClient returns a client for url whose exchanges time out after
// timeout.
func NewClient(url string, timeout time.Duration) *Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	return &Client{URL: url, HTTP: &http.Client{Timeout: timeout, Transport: tr}}
}

type request struct {
	Sender  string `json:"sender"`
	Message string `json:"message"`
}

type message struct {
	RecipientID string  `json:"recipient_id"`
	Text        *string `json:"text"`
}

// Send posts one user message and returns the texts of the bot's reply in
// order (messages without text, such as images or buttons alone, are
// skipped) and how long the exchange took on the wall clock. The error is a
// *Fault.
func (c *Client) Send(ctx context.Context, sender, text string) ([]string, time.Duration, error) {
	body, _ := json.Marshal(request{Sender: sender, Message: text})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return nil, 0, &Fault{Kind: Connection, Msg: err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, time.Since(start), classify(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxReplyBytes+1))
	took := time.Since(start)
	if err != nil {
		return nil, took, classify(err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, took, &Fault{Kind: Status, Msg: fmt.Sprintf("HTTP %d", resp.StatusCode)}
	}
	if len(data) > maxReplyBytes {
		return nil, took, &Fault{Kind: Malformed, Msg: fmt.Sprintf("reply longer than %d bytes", maxReplyBytes)}
	}
	var msgs []message
	if err := json.Unmarshal(data, &msgs); err != nil {
		return nil, took, &Fault{Kind: Malformed, Msg: "expected a JSON list of {recipient_id, text}: " + err.Error()}
	}
	texts := make([]string, 0, len(msgs))
	for _, m := range msgs {
		if m.Text != nil {
			texts = append(texts, *m.Text)
		}
	}
	return texts, took, nil
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
