package bot

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/spec"
)

// CompareState compares the bot's state v (decoded JSON) after a turn with
// the model's configuration c by bot.yaml's state: mapping, and says what
// differs first ("": nothing): a slot (in the mapping's order), the slot
// waited for, the state, the active flow. A value the path does not find,
// null and "" are all an empty slot.
func CompareState(st *spec.BotState, m *engine.Machine, c *engine.Config, v any) string {
	for i, e := range st.Slots {
		id, _ := m.SlotID(e.Key)
		want := ""
		if x := c.Slots[id]; !x.IsEmpty() {
			want = x.String()
		}
		if got := first(st.SlotPaths[i].Select(v)); got != want {
			return fmt.Sprintf("slot %s: the bot holds %s, the model %s", e.Key, show(got), show(want))
		}
	}
	if st.WaitingPath != nil {
		want := ""
		if c.Waiting != engine.NoID {
			want = m.SlotName(c.Waiting)
		}
		if got := first(st.WaitingPath.Select(v)); got != want {
			return fmt.Sprintf("waiting for slot: the bot %s, the model %s", show(got), show(want))
		}
	}
	if st.StatePath != nil {
		got := first(st.StatePath.Select(v))
		for _, e := range st.States {
			if e.Key == got {
				got = e.Value.Value
				break
			}
		}
		if want := m.StateName(c.State); got != want {
			return fmt.Sprintf("state: the bot is in %s, the model in %s", show(got), show(want))
		}
	}
	if st.FlowPath != nil {
		want := ""
		if c.FlowDepth > 0 {
			want = m.FlowName(c.Flow())
		}
		if got := first(st.FlowPath.Select(v)); got != want {
			return fmt.Sprintf("active flow: the bot's is %s, the model's %s", show(got), show(want))
		}
	}
	return ""
}

// first is the first selected value as the model writes values: a string
// as it is, a number in its shortest form, a bool as true or false,
// nothing and null as "" (empty), anything else as JSON.
func first(sel []any) string {
	if len(sel) == 0 {
		return ""
	}
	switch x := sel[0].(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

func show(s string) string {
	if s == "" {
		return "nothing"
	}
	return strconv.Quote(s)
}
