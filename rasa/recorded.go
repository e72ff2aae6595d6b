package rasa

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/simctl/simctl/engine"
)

// A project may ship recordings of its LLM command generator: the demo's
// llm_mock_server/collection.json is a Postman collection whose saved
// examples pair a chat-completion request (the prompt, ending in the
// conversation so far) with the commands the LLM answered. Rasa's e2e
// tests run against a mock server that replays them. The import reads
// them the same way: a test turn whose conversation so far (its user
// messages) is a recording's has the recorded commands as its parse.

// recordingFile is where a project keeps its recordings.
const recordingFile = "llm_mock_server/collection.json"

// Recording is one recorded reply of the command generator.
type Recording struct {
	Users    []string // the user messages of the conversation, oldest first
	Commands string   // the LLM's answer: commands in Rasa's DSL, one per line or comma
	Pos      engine.Pos
}

type postmanCollection struct {
	Item []struct {
		Response []struct {
			Name            string `json:"name"`
			Body            string `json:"body"`
			OriginalRequest struct {
				Body struct {
					Raw string `json:"raw"`
				} `json:"body"`
			} `json:"originalRequest"`
		} `json:"response"`
	} `json:"item"`
}

var (
	historyRe = regexp.MustCompile(`(?s)Conversation History(.*?)(?:\n\n---|$)`)
	userLine  = regexp.MustCompile(`(?m)^USER: (.*)$`)
)

// readRecordings reads the project's recordings, if it has any.
func (p *Project) readRecordings() error {
	file := filepath.Join(p.Dir, recordingFile)
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: cannot read it (%v)", file, err)
	}
	var col postmanCollection
	if err := json.Unmarshal(data, &col); err != nil {
		return &Error{Pos: jsonPos(file, data, err), Msg: "expected a Postman collection of recorded LLM replies: " + jsonMsg(err)}
	}
	for _, it := range col.Item {
		for _, r := range it.Response {
			pos := engine.Pos{File: file, Line: lineOf(data, r.Name), Col: 1}
			var req struct {
				Messages []struct {
					Content string `json:"content"`
				} `json:"messages"`
			}
			var resp struct {
				Choices []struct {
					Message struct {
						Content string `json:"content"`
					} `json:"message"`
				} `json:"choices"`
			}
			if json.Unmarshal([]byte(r.OriginalRequest.Body.Raw), &req) != nil || len(req.Messages) == 0 ||
				json.Unmarshal([]byte(r.Body), &resp) != nil || len(resp.Choices) == 0 {
				p.note(pos, "recorded reply %q is not a chat completion request and reply; it is not used", r.Name)
				continue
			}
			m := historyRe.FindStringSubmatch(req.Messages[len(req.Messages)-1].Content)
			if m == nil {
				p.note(pos, "recorded reply %q has no conversation history in its prompt; it is not used", r.Name)
				continue
			}
			rec := Recording{Commands: resp.Choices[0].Message.Content, Pos: pos}
			for _, u := range userLine.FindAllStringSubmatch(m[1], -1) {
				rec.Users = append(rec.Users, strings.TrimSpace(u[1]))
			}
			if len(rec.Users) > 0 {
				p.Recordings = append(p.Recordings, rec)
			}
		}
	}
	return nil
}

// lineOf is the line of the first `"name": "NAME"` in data (1 if absent):
// the recording's place in the file for import.md.
func lineOf(data []byte, name string) int {
	key, _ := json.Marshal(name)
	i := strings.Index(string(data), `"name": `+string(key))
	if i < 0 {
		return 1
	}
	return strings.Count(string(data[:i]), "\n") + 1
}

func jsonPos(file string, data []byte, err error) engine.Pos {
	off := int64(len(data))
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := string(data[:off])
	line := strings.Count(before, "\n") + 1
	col := int(off) - strings.LastIndex(before, "\n")
	return engine.Pos{File: file, Line: line, Col: max(col, 1)}
}

func jsonMsg(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("%s must be %s, not %s", te.Field, te.Type, te.Value)
	}
	return err.Error()
}

// recorded is the recording for a conversation whose user messages so
// far are users, or nil.
func (p *Project) recorded(users []string) *Recording {
	for i := range p.Recordings {
		r := &p.Recordings[i]
		if len(r.Users) != len(users) {
			continue
		}
		same := true
		for j := range users {
			if strings.TrimSpace(users[j]) != r.Users[j] {
				same = false
				break
			}
		}
		if same {
			return r
		}
	}
	return nil
}

var dslSplit = regexp.MustCompile(`\n|,\s*(?:start flow|set slot|cancel flow|disambiguate flows|provide info|search and reply|offtopic reply|hand over|repeat message)`)

// dslCommands splits an LLM answer into its commands.
func dslCommands(answer string) []string {
	var out []string
	rest := strings.TrimSpace(answer)
	for rest != "" {
		loc := dslSplit.FindStringIndex(rest)
		if loc == nil {
			out = append(out, strings.TrimSpace(rest))
			break
		}
		cut := loc[0]
		out = append(out, strings.TrimSpace(rest[:cut]))
		rest = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest[cut:]), ","))
	}
	var clean []string
	for _, c := range out {
		if c != "" {
			clean = append(clean, c)
		}
	}
	return clean
}

// fromRecording turns recorded DSL commands into the turn's command:
// start flow with the slots set beside it, slots set (the asked one
// gives the value), cancel flow, disambiguation, knowledge, chitchat and
// handoff. ok is false when a command has no counterpart.
func (t *translator) fromRecording(r *Recording, asked string) (*command, string) {
	c := &command{why: "recorded at " + r.Pos.String()}
	// Rasa runs a message's commands in reverse, so the first flow
	// started ends on top of the stack and runs first; a second start
	// (or a start beside a cancellation) waits beneath it.
	var starts []string
	cancel := false
	for _, cmd := range dslCommands(r.Commands) {
		f := strings.Fields(cmd)
		switch {
		case strings.HasPrefix(cmd, "start flow ") && len(f) == 3:
			if t.p.Flow(f[2]) == nil {
				return nil, fmt.Sprintf("starts flow %s, which the project does not have", f[2])
			}
			starts = append(starts, f[2])
		case strings.HasPrefix(cmd, "set slot ") && len(f) >= 4:
			slot := f[2]
			sl := t.p.Slot(slot)
			if sl == nil {
				return nil, fmt.Sprintf("sets slot %s, which the domain does not have", slot)
			}
			v := strings.Trim(strings.TrimSpace(strings.SplitN(cmd, slot, 2)[1]), `'"`)
			if sl.Type == "bool" {
				v = strings.ToLower(v)
			}
			if c.intent == "" {
				c.intent = "set_slot"
			}
			if slot == asked || !c.hasValue {
				c.value, c.hasValue = v, true
				if slot == asked {
					c.slot = slot
				}
			}
			c.fill(slot, v)
		case cmd == "cancel flow":
			cancel = true
		case strings.HasPrefix(cmd, "disambiguate flows"):
			c.intent = "clarify"
		case cmd == "provide info" || cmd == "search and reply":
			c.intent = "search"
		case cmd == "offtopic reply":
			c.intent = "chitchat"
		case cmd == "hand over":
			c.intent = "human_handoff"
		default:
			return nil, fmt.Sprintf("command %q has no counterpart in the imported machine", cmd)
		}
	}
	switch {
	case cancel:
		c.intent = "cancel_flow"
		if len(starts) > 0 {
			c.entity("next_flow", starts[0])
		}
	case len(starts) > 0:
		c.intent = "start_flow"
		c.entities = append([][2]string{{"flow", starts[0]}}, c.entities...)
		if len(starts) > 1 {
			c.entity("next_flow", starts[1])
		}
	}
	if c.intent == "" {
		return nil, "holds no command"
	}
	return c, ""
}
