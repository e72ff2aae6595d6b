package rasa

import (
	"fmt"
	"strings"
)

// report writes import.md: what was imported, how each Rasa construct is
// translated, and every construct not kept, with its position.
func (t *translator) report(s *Suite) []byte {
	var b strings.Builder
	p := t.p
	fmt.Fprintf(&b, "# Import of the Rasa project %s\n\n", p.Dir)
	b.WriteString("Written by `simctl import rasa`; re-importing overwrites this file, machine.yaml and the\n" +
		"scenarios, and keeps your edits to nlu.yaml.\n\n")
	fmt.Fprintf(&b, "- flows: %d (%d steps), default patterns added: %d\n", s.Flows, s.Steps, s.Patterns)
	fmt.Fprintf(&b, "- e2e test cases: %d, scenarios written: %d\n", len(p.Tests), s.Scenarios)
	fmt.Fprintf(&b, "- constructs not kept or kept approximately: %d (listed below)\n\n", len(s.Notes))
	var defaults, overridden []string
	for _, f := range p.Flows {
		if f.Default {
			defaults = append(defaults, f.ID)
		} else if f.Pattern {
			overridden = append(overridden, f.ID)
		}
	}
	if len(overridden) > 0 {
		fmt.Fprintf(&b, "Patterns the project overrides: %s.\n\n", strings.Join(overridden, ", "))
	}
	fmt.Fprintf(&b, "Rasa's default patterns used: %s.\n\n", strings.Join(defaults, ", "))
	b.WriteString(`## How the project is translated

| Rasa | simctl |
| --- | --- |
| a flow or pattern | a compound state under ` + "`session`" + ` and a flow of machine.yaml holding its collect slots; starting it pushes the flow, ending it clears its slots (unless ` + "`reset_after_flow_ends: false`" + ` or ` + "`persisted_slots`" + `) and pops it |
| ` + "`collect`" + ` | three states: STEP (skips a filled slot unless ` + "`ask_before_filling`" + `), STEP_wait (says the ` + "`utter_ask_<slot>`" + ` response and waits, direct slot mapping ` + "`set_slot`" + `), STEP_check (the slot's rejections, then next); a float, bool or categorical slot rejects other values with Rasa's default rejection response |
| ` + "`action: utter_*`" + ` | a state that says the response's first text |
| a custom action | an external action (machine.yaml ` + "`actions:`" + `), stubbed from the e2e tests' ` + "`stub_custom_actions`" + ` (slot events become outputs, responses are said); a failure starts pattern_internal_error |
| ` + "`set_slots`" + `, ` + "`noop`" + ` | a state with set/clear entry actions; a state |
| ` + "`next`" + ` with ` + "`if`/`then`/`else`" + ` | eventless transitions with the conditions translated to expressions, in order, and the end of the flow when none holds |
| ` + "`link`" + ` | ends the flow and starts the linked one |
| ` + "`call`" + ` | records the return point (slot ` + "`at_<flow>`" + `), pushes the called flow; when it ends the caller resumes at STEP_ret |
| an interruption (a flow started while another waits) | the new flow is pushed over the interrupted one; when it ends, pattern_continue_interrupted asks, then ` + "`at_<flow>`" + ` sends the interrupted flow back to the collect step it was waiting at |
| commands | intents ` + "`start_flow`" + ` (entity ` + "`flow`" + `, and the flow's slots as entities), ` + "`set_slot`" + `, ` + "`correct_slot`" + ` (the corrected slots as entities; the flow goes back to the earliest corrected collect step, as Rasa resets it), ` + "`cancel_flow`" + `, ` + "`clarify`" + `, ` + "`chitchat`" + `, ` + "`human_handoff`" + `, ` + "`cannot_handle`" + ` (text no rule matches) |
| pattern context (` + "`context.canceled_name`" + `, ...) | slots ` + "`ctx_*`" + ` set where Rasa's default actions would set them |
| an e2e test case | a scenario: each user message a turn; ` + "`utter`" + ` and ` + "`bot`" + ` steps the turn's ` + "`bot`" + ` text (` + "`bot_matches`" + ` when a response has slot placeholders), ` + "`slot_was_set`" + ` its ` + "`slots`" + `, ` + "`flow_started`" + ` its ` + "`state`" + ` |

## What the translation cannot keep

- **The LLM command generator.** CALM turns each message into commands with an LLM; nlu.yaml's
  rules are a deterministic stand-in, seeded from the e2e tests (each utterance gets the command its
  test implies) and the flows' names. They are a starting point: you own nlu.yaml. Answers to a
  question are mapped into the slot directly, without the NLU.
- **Rephrasing.** Responses are said as written (their first variation); the contextual response
  rephraser is an LLM.
- **` + "`action_trigger_search`" + ` and ` + "`action_trigger_chitchat`" + `** (Enterprise Search, free-form chitchat) generate
  answers with an LLM; they do nothing here.
- **Custom action code.** A custom action is an external action whose result is its stub: the
  e2e tests' ` + "`stub_custom_actions`" + ` (one stub per action for every scenario; per-test-case stubs only
  where no file-wide stub exists), else success with no effect.
- **Approximated:** one interrupted flow is resumed at a time (` + "`context.multiple_flows_interrupted`" + ` is
  false); a correction is applied when the command arrives, before pattern_correction runs
  (` + "`context.is_reset_only`" + ` is false); cancelling pops the flow before pattern_cancel_flow runs; commands
  other than answers and ` + "`start_flow`" + ` are ignored while a pattern asks a question; float values print
  as simctl numbers (` + "`50`" + `, where Rasa's response says ` + "`50.0`" + `); slots start empty
  (` + "`initial_value`" + ` and e2e fixtures are not kept); a scenario checks slots at the end of the turn,
  so a ` + "`slot_was_set`" + ` of a slot that its flow resets when it ends in the same turn fails with the
  slot empty (Rasa's test sees the event); a flow is started at most once (Rasa moves a flow on the
  stack to the top instead).
- **Where statecharts would be more faithful.** The return points of interruptions and ` + "`call`" + ` are
  a slot per flow and a dispatch state (` + "`resume`" + `); a history state would remember the step
  itself, and internal events would let a pattern's default action (` + "`action_cancel_flow`" + `,
  ` + "`action_correct_flow_slot`" + `) act at its own step instead of when the command arrives.

`)
	b.WriteString("## Constructs not kept, or kept approximately\n\n")
	if len(s.Notes) == 0 {
		b.WriteString("None.\n")
	}
	for _, n := range s.Notes {
		fmt.Fprintf(&b, "- `%s`: %s\n", n.Pos, n.What)
	}
	return []byte(b.String())
}
