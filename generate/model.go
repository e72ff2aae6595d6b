// Package generate makes simulated users talk to a machine: an agenda-based
// user (Schatzmann et al., 2007) pursues a goal, answering what the machine
// asks, and with configured probabilities strays (corrects an earlier slot,
// gives an invalid value, goes off topic, stays silent until a timeout,
// changes its mind, asks for a human, cancels, says no). Conversations are
// drawn with gopter generators from a seed and an index, so conversation k
// is the same whichever process runs it; every step is checked by the
// invariants of package eval; a failing conversation is shrunk with
// gopter's shrinkers to a minimal one and written as a scenario file.
// Run is the entry point.
package generate

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/machinevalues"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

// Kind is what a simulated user does in a turn.
type Kind uint8

const (
	Follow     Kind = iota // cooperate: answer what is asked, confirm, start the task
	Invalid                // give a value the machine should reject
	Correct                // correct a slot given earlier
	OffTopic               // say something unrelated
	Silence                // say nothing until the next timer fires
	ChangeMind             // ask for another task
	Human                  // ask for a human
	Cancel                 // cancel the task
	Deny                   // say no to a confirmation
	Thanks                 // past completion: say thanks (the thanks phrase)
	numKinds
)

var kindNames = [...]string{"follow", "invalid", "correct", "off_topic", "silence", "change_mind", "human", "cancel", "deny", "thanks"}

// Persona is the kind of user a conversation is drawn as: how its turns
// stray (docs/users-format.md#personas).
type Persona uint8

const (
	Cooperative  Persona = iota // every turn cooperates; no action fails
	Correcting                  // changes its mind about values given
	Silent                      // says nothing until timers fall due
	Impatient                   // cancels, asks for a person, asks again
	OffTopicUser                // talks about something else
	Noisy                       // the behaviour: mix of users.yaml
	numPersonas
)

func (p Persona) String() string { return spec.PersonaNames[p] }

// defaultPersonas is the chance of each persona when users.yaml does not
// say.
var defaultPersonas = [numPersonas]float64{Cooperative: 0.4, Correcting: 0.1, Silent: 0.1, Impatient: 0.1, OffTopicUser: 0.1, Noisy: 0.2}

// personaStray is, per persona other than Noisy (whose mix is users.yaml's
// behaviour:), the chance per turn of each way of straying; the rest of
// the turns cooperate.
var personaStray = [numPersonas][numKinds]float64{
	Correcting:   {Correct: 0.25},
	Silent:       {Silence: 0.25},
	Impatient:    {Cancel: 0.08, Human: 0.08, ChangeMind: 0.04},
	OffTopicUser: {OffTopic: 0.25},
}

// afterKinds is the chance of each kind of turn past completion: thanks,
// a correction of a value given, a new request, silence.
var afterKinds = [numKinds]float64{Thanks: 0.3, Correct: 0.2, ChangeMind: 0.2, Silence: 0.3}

// defaultAfter is the number of turns a user goes on for past completion
// when users.yaml does not say.
const defaultAfter = 3

func (k Kind) String() string { return kindNames[k] }

// defaultBehaviour is the chance of each way of straying when users.yaml
// does not say.
var defaultBehaviour = [numKinds]float64{
	Invalid: 0.08, Correct: 0.04, OffTopic: 0.04, Silence: 0.03,
	ChangeMind: 0.02, Human: 0.02, Cancel: 0.03, Deny: 0.05,
}

// defaultFailRate is the chance, per turn, that the external actions the
// turn sets off fail, when users.yaml does not say.
const defaultFailRate = 0.02

// goal is a compiled spec.Goal.
type goal struct {
	name    string
	say     string
	success func(*engine.Config) bool
	intent  engine.IntentID
	weight  float64
	slots   []engine.SlotID
	values  [][]string // per slot
	invalid [][]string // per slot
	// plain: a derived goal's values per slot from validators, entities
	// and types only (SlotValues).
	plain [][]string
	// lists: the slots the user gives several items for, one per ask,
	// before saying the done phrase.
	lists []list
}

type list struct {
	slot  engine.SlotID
	items []string
}

// listOf returns the goal's list for slot s, or nil.
func (g *goal) listOf(s engine.SlotID) []string {
	for _, l := range g.lists {
		if l.slot == s {
			return l.items
		}
	}
	return nil
}

// Model is what the user simulator knows of one suite and variant.
type Model struct {
	m       *engine.Machine
	goals   []goal
	weights [numKinds]float64
	// personas is the chance of each persona; stray, per persona, the
	// chance of each kind of turn (Follow: the rest).
	personas [numPersonas]float64
	stray    [numPersonas][numKinds]float64
	// after is the number of turns past completion.
	after int
	// utterances are the texts the model knows the NLU's parse of, shortest
	// first: what shrinking replaces a user's words with.
	utterances []string
	// failRate is the chance that a turn's external actions fail.
	failRate float64
	phrases  map[string]string
	intentPh map[engine.IntentID]string // how to say each intent, when the NLU has a phrase
	// own holds, per intent, its exact nlu.yaml phrases, lower-cased: a
	// guard that tests the text for one of them picks which of the
	// intent's phrases a state takes, and asks no question.
	own      map[engine.IntentID]map[string]bool
	maxTurns int
	// goalless: the goals are derived, and nothing in the suite says what
	// a task is: no flow, no top-level final state, no idle_states, no
	// goal a user asks for in words (an nlu.yaml phrase). A conversation
	// is then played for its turns, no success is judged and no end is
	// asked of it (Play).
	goalless bool
	// fallback values for slots no goal covers, and invalid ones; slotValues
	// holds several valid candidates per slot, so that derived goals can
	// give different slots different values.
	slotValues map[engine.SlotID][]string
	slotValue  map[engine.SlotID]string
	// answers holds the candidates derived users give each slot
	// (deriveSlotValues).
	answers     map[engine.SlotID][]string
	slotInvalid map[engine.SlotID]string
	// choices caches, per leaf state, the answers its guards accept
	// (choices.go).
	choices map[engine.StateID][]choice
	intents map[engine.StateID][]engine.IntentID
	// dist holds, per state, how far it is from a final state
	// (progress.go).
	dist []int
	// entityTexts holds, per nlu.yaml entity, texts its rule extracts it
	// from: a synonym per value, or short strings its pattern finds.
	entityTexts map[string][]string
	// own events are those the machine raises or sends itself (a chart's
	// <raise>, its <send> to itself): the machine's own signals, such as
	// a calculator's CALC.SUB, which no user presses while it has
	// anything else to say (a modelling choice; the explorer still takes
	// them as events from outside).
	ownEvents map[engine.IntentID]bool
}

// NewModel builds the simulator's model for machine m of suite s: from the
// suite's users.yaml, or from defaults derived from the machine and its NLU
// rules (intents that start flows become goals; validators and entity
// synonyms give slot values).
func NewModel(s *spec.Suite, m *engine.Machine) (*Model, error) {
	mo := &Model{m: m, phrases: map[string]string{}, intentPh: map[engine.IntentID]string{},
		slotValue: map[engine.SlotID]string{}, slotValues: map[engine.SlotID][]string{}, answers: map[engine.SlotID][]string{}, slotInvalid: map[engine.SlotID]string{}, maxTurns: s.MaxTurns}
	mo.ownEvents = ownEvents(s.Def, m)
	mo.deriveEntityTexts(s.NLU)
	mo.deriveIntentPhrases(s.NLU)
	mo.deriveSlotValues(s)
	mo.weights = defaultBehaviour
	mo.failRate = defaultFailRate
	mo.personas = defaultPersonas
	mo.after = defaultAfter
	u := s.Users
	zero := [numKinds]bool{}
	if u != nil {
		if len(u.Personas) > 0 {
			mo.personas = [numPersonas]float64{}
			for _, p := range u.Personas {
				mo.personas[slices.Index(spec.PersonaNames, p.Key)] = p.Value.Value
			}
		}
		if u.AfterCompletion != nil {
			mo.after = *u.AfterCompletion
		}
		b := u.Behaviour
		if b.ActionFailure != nil {
			mo.failRate = b.ActionFailure.Value
		}
		for k, p := range map[Kind]*spec.Prob{Correct: b.Correct, Invalid: b.Invalid, OffTopic: b.OffTopic, Silence: b.Silence,
			ChangeMind: b.ChangeMind, Human: b.Human, Cancel: b.Cancel, Deny: b.Deny} {
			if p != nil {
				mo.weights[k] = p.Value
				zero[k] = p.Value == 0
			}
		}
		for _, p := range u.Phrases {
			mo.phrases[p.Key] = p.Value.Value
		}
		if u.MaxTurns > 0 {
			mo.maxTurns = u.MaxTurns
		}
		for _, g := range u.Goals {
			if !forVariant(g, s, m) {
				continue
			}
			cg := goal{name: g.Name, weight: g.Weight, say: g.Say}
			if g.Success.Src != "" {
				// Compiled again for this variant's machine.
				check, err := m.Condition(engine.Expr{Src: g.Success.Src, Pos: g.Success.Pos})
				if err != nil {
					return nil, err
				}
				cg.success = check
			}
			cg.intent, _ = m.IntentID(g.Intent.Value)
			for _, e := range g.Slots {
				id, _ := m.SlotID(e.Key)
				cg.slots = append(cg.slots, id)
				cg.values = append(cg.values, e.Value)
				var bad []string
				for _, iv := range g.Invalid {
					if iv.Key == e.Key {
						bad = iv.Value
					}
				}
				cg.invalid = append(cg.invalid, bad)
			}
			for _, e := range g.Lists {
				id, _ := mo.m.SlotID(e.Key)
				cg.lists = append(cg.lists, list{slot: id, items: e.Value})
			}
			mo.goals = append(mo.goals, cg)
		}
	}
	if !mayFail(m) {
		// Nothing can fail: draw nothing, so that the machine's
		// conversations are the ones drawn before failures were.
		mo.failRate = 0
	}
	total := 0.0
	for k := Invalid; k < numKinds; k++ {
		total += mo.weights[k]
	}
	mo.weights[Follow] = 1 - total
	// The personas stray in their own way, never in one users.yaml's
	// behaviour: sets to 0 (the machine has no way to handle it).
	for p := Persona(0); p < numPersonas; p++ {
		if p == Noisy {
			mo.stray[p] = mo.weights
			continue
		}
		rest := 1.0
		for k := Invalid; k < numKinds; k++ {
			if !zero[k] {
				mo.stray[p][k] = personaStray[p][k]
				rest -= personaStray[p][k]
			}
		}
		mo.stray[p][Follow] = rest
	}
	if len(mo.goals) == 0 {
		mo.deriveGoals(s)
		mo.goalless = len(s.Def.Flows) == 0 && len(s.Def.IdleStates) == 0 && !hasEnd(m) && !mo.askedInWords(s)
	}
	if len(mo.goals) == 0 {
		return nil, fmt.Errorf("%s: no goals for generated conversations: the machine declares no intents (add users.yaml)", s.Dir)
	}
	if mo.maxTurns <= 0 {
		mo.maxTurns = 20
	}
	mo.defaultPhrases()
	mo.deriveUtterances(s)
	return mo, nil
}

// The definitions of a generated conversation's success, as Metrics
// report them.
const (
	// SuccessCompleted: the goal's flow completed (the default).
	SuccessCompleted = "flow completed"
	// SuccessCondition: users.yaml's success: conditions.
	SuccessCondition = "users.yaml success:"
	// SuccessMixed: success: where a goal gives one, else flow completed.
	SuccessMixed = "success: where given, else flow completed"
	// SuccessNone: no goal to reach (derived users of a machine with no
	// flow and no top-level final state): no success is judged.
	SuccessNone = "no goal to reach"
)

// SuccessBy says which definition of success the model's goals use.
func (mo *Model) SuccessBy() string {
	if mo.goalless {
		return SuccessNone
	}
	with := 0
	for _, g := range mo.goals {
		if g.success != nil {
			with++
		}
	}
	switch with {
	case 0:
		return SuccessCompleted
	case len(mo.goals):
		return SuccessCondition
	}
	return SuccessMixed
}

// askedInWords reports whether a user asks for some goal in words: a
// phrase of nlu.yaml, not an intent or event sent by its name (without
// nlu.yaml the name is the phrase: a chart's button).
func (mo *Model) askedInWords(s *spec.Suite) bool {
	if s.NLU == nil {
		return false
	}
	for _, g := range mo.goals {
		if g.say != "" || mo.intentPh[g.intent] != "" {
			return true
		}
	}
	return false
}

// hasEnd reports whether m has a top-level final state, where a
// conversation ends.
func hasEnd(m *engine.Machine) bool {
	for i := 0; i < m.NumStates(); i++ {
		if s := engine.StateID(i); m.IsFinal(s) && m.Parent(s) == engine.NoID {
			return true
		}
	}
	return false
}

// mayFail reports whether m invokes an action that may fail.
func mayFail(m *engine.Machine) bool {
	for i := 0; i < m.NumActions(); i++ {
		if k, name, _ := m.ActionInfo(uint32(i)); k == engine.ActInvoke {
			if x, ok := m.ExtID(name); ok && m.MayFail(x) {
				return true
			}
		}
	}
	return false
}

// forVariant reports whether goal g applies to the variant machine m
// belongs to: a goal naming variants applies where the machine's parameters
// match one of them.
func forVariant(g spec.Goal, s *spec.Suite, m *engine.Machine) bool {
	if len(g.Variants) == 0 {
		return true
	}
	name := ""
	for _, v := range s.Variants {
		if v.Machine == m {
			name = v.Name
		}
	}
	for _, v := range g.Variants {
		if v.Value == name {
			return true
		}
	}
	return false
}

// deriveIntentPhrases takes, for every intent, a phrase the stub NLU maps
// to it: its first exact phrase, else its first keyword. Without nlu.yaml
// the intent's own name is such a phrase.
func (mo *Model) deriveIntentPhrases(n *spec.NLU) {
	if n == nil {
		for i, name := range mo.m.Intents() {
			mo.intentPh[engine.IntentID(i)] = name
		}
		return
	}
	for _, r := range n.Intents {
		id, _ := mo.m.IntentID(r.Key)
		for _, e := range r.Value.Exact {
			if mo.own == nil {
				mo.own = map[engine.IntentID]map[string]bool{}
			}
			if mo.own[id] == nil {
				mo.own[id] = map[string]bool{}
			}
			mo.own[id][strings.ToLower(strings.TrimSpace(e))] = true
		}
		if _, done := mo.intentPh[id]; done {
			continue
		}
		switch {
		case len(r.Value.Exact) > 0:
			mo.intentPh[id] = r.Value.Exact[0]
		case len(r.Value.Keywords) > 0:
			mo.intentPh[id] = r.Value.Keywords[0]
		}
	}
}

// deriveSlotValues gives every slot a plausible valid and invalid value,
// from its validator or the NLU's entity synonyms (slotValues, what the
// explorer's alphabet takes too), and the candidates a derived user
// answers with (answers): the same, except that where those are only a
// placeholder (no candidate fits a regex, no validator) the machine's own
// values stand in, which the explorer gets by its own way (package
// machinevalues).
func (mo *Model) deriveSlotValues(s *spec.Suite) {
	vals := map[string][]string{}
	made := map[string][]string{} // per regex validator no candidate fits: the text the pattern makes
	for _, v := range s.Def.Validators {
		switch {
		case len(v.OneOf) > 0:
			vals[v.Name] = v.OneOf
		case v.Builtin != "":
			vals[v.Name] = builtinExamples[v.Builtin]
		case v.Regex != "":
			vals[v.Name] = regexExamples(v.Regex)
			if ex, ok := machinevalues.RegexExample("^(?:" + v.Regex + ")$"); ok && len(vals[v.Name]) == 1 && vals[v.Name][0] == noExample {
				made[v.Name] = []string{ex}
			}
		}
	}
	for k, v := range builtinExamples {
		if _, ok := vals[k]; !ok {
			vals[k] = v
		}
	}
	// The answers the machine's guards name for a slot: where no
	// validator says what is valid, those are.
	named := machinevalues.SlotConstants(s.Def)
	for _, sd := range s.Def.Slots {
		id, _ := mo.m.SlotID(sd.Name)
		v := vals[sd.Validator]
		answers := made[sd.Validator]
		if len(v) == 0 {
			answers = named[sd.Name]
			switch sd.Type {
			case engine.TypeNumber:
				v = []string{"42", "7", "1500"}
			case engine.TypeBool:
				v = []string{"yes"}
			default:
				v = []string{"something", "another thing"}
			}
		}
		if len(answers) == 0 {
			answers = v
		}
		mo.slotValues[id] = v
		mo.answers[id] = answers
		mo.slotValue[id] = answers[0]
		mo.slotInvalid[id] = "???"
	}
	if s.NLU != nil {
		for _, e := range s.NLU.Entities {
			if len(e.Value.Values) == 0 {
				continue
			}
			for _, sl := range e.Value.Slots {
				id, _ := mo.m.SlotID(sl.Value)
				var said []string
				for _, syn := range e.Value.Values {
					if len(syn.Value) > 0 {
						said = append(said, syn.Value[0])
					} else {
						said = append(said, syn.Key)
					}
				}
				mo.slotValues[id] = said
				mo.answers[id] = said
				mo.slotValue[id] = said[0]
			}
		}
	}
}

// deriveEntityTexts finds, for every nlu.yaml entity, texts that carry
// it, so that a user can answer a question whose guard wants the entity.
func (mo *Model) deriveEntityTexts(n *spec.NLU) {
	mo.entityTexts = map[string][]string{}
	if n == nil {
		return
	}
	for _, e := range n.Entities {
		var texts []string
		for _, v := range e.Value.Values {
			if len(v.Value) > 0 {
				texts = append(texts, v.Value[0])
			} else {
				texts = append(texts, v.Key)
			}
		}
		if re := e.Value.Compiled; re != nil {
			n := len(texts)
			for _, c := range regexCandidates {
				if re.MatchString(c) {
					texts = append(texts, c)
				}
			}
			if ex, ok := machinevalues.RegexExample(e.Value.Pattern.Value); ok && len(texts) == n {
				texts = append(texts, ex)
			}
		}
		mo.entityTexts[e.Key] = texts
	}
}

var builtinExamples = map[string][]string{
	"email": {"ana@example.com", "luis@example.org"}, "phone": {"+34 600 123 456", "555 123 4567"},
	"url": {"https://example.com", "http://example.org/page"}, "number": {"42", "7.5"}, "text": {"some text", "other text"},
}

// regexExamples finds short strings a simple pattern accepts, among a few
// candidates; patterns none satisfies give noExample.
func regexExamples(pattern string) []string {
	re, err := regexp.Compile("^(?:" + pattern + ")$")
	if err != nil {
		return []string{noExample}
	}
	var out []string
	for _, c := range regexCandidates {
		if re.MatchString(c) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return []string{noExample}
	}
	return out
}

// noExample is the value of a pattern no candidate fits.
const noExample = "value"

// regexCandidates are the short strings tried against a pattern.
var regexCandidates = []string{"Madrid", "Paris", "Lisbon", "value", "ABC123", "abc", "123", "2025-12-12", "2025-12-13", "A", "1", "12:30", "28001"}

var intentRe = regexp.MustCompile(`event\.intent\s*==\s*"([^"]+)"`)

// entityRe finds a guard's test of an entity's value.
var entityRe = regexp.MustCompile(`event\.entities\.([A-Za-z_][A-Za-z0-9_]*)\s*==\s*"([^"]*)"`)

// sayFor finds how to ask for a task whose transition's guard wants an
// entity value (event.entities.flow == "transfer_money", as a Rasa import
// writes it): a phrase of nlu.yaml's entity value that the NLU makes the
// intent of, with that entity. "" when there is none: the intent's phrase.
func (mo *Model) sayFor(s *spec.Suite, intent engine.IntentID, guard string) string {
	if s.NLU == nil {
		return ""
	}
	stub := sim.NewStub(s.NLU, mo.m)
	for _, m := range entityRe.FindAllStringSubmatch(guard, -1) {
		for _, e := range s.NLU.Entities {
			if e.Key != m[1] {
				continue
			}
			for _, v := range e.Value.Values {
				if v.Key != m[2] {
					continue
				}
				for _, text := range append(append([]string(nil), v.Value...), v.Key) {
					var ev engine.Event
					if stub.Parse(text, 0, &ev) != nil || ev.Intent != intent {
						continue
					}
					for i := 0; i < int(ev.NEnt); i++ {
						if mo.m.EntityName(ev.Entities[i].ID) == m[1] && ev.Entities[i].Value.String() == m[2] {
							return text
						}
					}
				}
			}
		}
	}
	return ""
}

// deriveGoals makes one goal per flow, started by the intent whose
// transition pushes the flow (named as its trigger, or in its guard as
// event.intent == "x"); a machine without flows gets one goal per intent
// that the initial state handles.
func (mo *Model) deriveGoals(s *spec.Suite) {
	d := s.Def
	flowSlots := map[string][]string{}
	for _, f := range d.Flows {
		flowSlots[f.Name] = f.Slots
	}
	seen := map[string]bool{}
	all := false // the last resort takes the machine's own events too
	addGoal := func(intent, flow, guard string) {
		id, ok := mo.m.IntentID(intent)
		if !ok || seen[intent+"/"+flow] || (mo.ownEvents[id] && !all) {
			return
		}
		seen[intent+"/"+flow] = true
		g := goal{name: intent, intent: id, weight: 1, say: mo.sayFor(s, id, guard)}
		for i, sn := range flowSlots[flow] {
			sid, _ := mo.m.SlotID(sn)
			if yesNoSlot(mo.m, sid) {
				// A confirmation collected as a slot: the user answers it
				// as a confirmation, not with a value of its goal.
				continue
			}
			g.slots = append(g.slots, sid)
			// Rotate the candidates by slot, so that slots sharing a
			// validator (origin, destination) get different values.
			rotate := func(cands []string) []string {
				return append(append([]string(nil), cands[i%len(cands):]...), cands[:i%len(cands)]...)
			}
			g.values = append(g.values, rotate(mo.answers[sid]))
			g.plain = append(g.plain, rotate(mo.slotValues[sid]))
			g.invalid = append(g.invalid, []string{mo.slotInvalid[sid]})
		}
		mo.goals = append(mo.goals, g)
	}
	for _, sd := range d.States {
		for _, list := range [][]engine.TransitionDef{sd.On, sd.Always} {
			for _, t := range list {
				for _, a := range t.Actions {
					if a.Kind != engine.ActPush {
						continue
					}
					if _, ok := mo.m.IntentID(t.On); ok {
						addGoal(t.On, a.Name, t.Guard.Src)
					}
					for _, m := range intentRe.FindAllStringSubmatch(t.Guard.Src, -1) {
						addGoal(m[1], a.Name, t.Guard.Src)
					}
				}
			}
		}
	}
	// A flow that collects slots is a task; a flow that collects none,
	// where some do, is a repair (cancel, clarify, chitchat in a Rasa
	// import), not what a user comes for.
	var tasks []goal
	for _, g := range mo.goals {
		if len(g.slots) > 0 {
			tasks = append(tasks, g)
		}
	}
	if len(tasks) > 0 {
		mo.goals = tasks
	}
	if len(mo.goals) > 0 {
		return
	}
	// The initial state takes what its ancestors take too: an imported
	// Dialogflow agent rests in its start page's wait state, whose parent
	// (the start page) holds the intent routes.
	handles := map[string]bool{mo.m.StateName(0): true}
	for path := d.Initial; path != ""; {
		handles[path] = true
		i := strings.LastIndexByte(path, '.')
		if i < 0 {
			break
		}
		path = path[:i]
	}
	for _, sd := range d.States {
		full := sd.Name
		if sd.Parent != "" {
			full = sd.Parent + "." + sd.Name
		}
		if !handles[full] && !handles[sd.Name] {
			continue
		}
		for _, t := range sd.On {
			// With nlu.yaml, an intent no phrase gives (no input, a
			// custom event) is not something a user asks with.
			if id, ok := mo.m.IntentID(t.On); ok && s.NLU != nil && mo.intentPh[id] == "" {
				continue
			}
			addGoal(t.On, "", t.Guard.Src)
		}
	}
	for _, last := range []bool{false, true} {
		all = last
		for _, in := range mo.m.Intents() {
			if len(mo.goals) == 0 {
				addGoal(in, "", "")
			}
		}
	}
	sort.SliceStable(mo.goals, func(i, j int) bool { return mo.goals[i].name < mo.goals[j].name })
}

// ownEvents lists the events machine m's definition d raises or sends to
// itself, in any action list, however nested.
func ownEvents(d *engine.Definition, m *engine.Machine) map[engine.IntentID]bool {
	own := map[engine.IntentID]bool{}
	var walk func([]engine.ActionDef)
	walk = func(as []engine.ActionDef) {
		for _, a := range as {
			if a.Kind == engine.ActRaise || a.Kind == engine.ActSend {
				if id, ok := m.IntentID(a.Name); ok {
					own[id] = true
				}
			}
			for _, b := range a.Branches {
				walk(b.Actions)
			}
			walk(a.Body)
		}
	}
	walk(d.StartActions)
	for _, sd := range d.States {
		walk(sd.Entry)
		walk(sd.Exit)
		for _, list := range [][]engine.TransitionDef{sd.On, sd.Always} {
			for _, t := range list {
				walk(t.Actions)
			}
		}
	}
	return own
}

// roleIntents names, per phrase role, intents that probably mean it.
var roleIntents = map[string][]string{
	"affirm":    {"affirm", "yes", "confirm", "si"},
	"deny":      {"deny", "no", "reject"},
	"cancel":    {"cancel", "stop", "abort", "cancelar"},
	"human":     {"human", "request_human", "agent", "escalate", "handoff", "ask_human"},
	"off_topic": {"off_topic", "chitchat", "greet", "smalltalk"},
	"thanks":    {"thanks", "thank", "thank_you", "thankyou", "goodbye", "bye"},
	"done":      {"done", "finish", "finished", "thats_all", "that_is_all", "no_more", "nothing_else", "enough"},
}

// defaultPhrases fills the roles users.yaml left out, from intents whose
// names suggest the role.
func (mo *Model) defaultPhrases() {
	for role, names := range roleIntents {
		if _, ok := mo.phrases[role]; ok {
			continue
		}
		for _, n := range names {
			if id, ok := mo.m.IntentID(n); ok {
				if ph, ok := mo.intentPh[id]; ok {
					mo.phrases[role] = ph
					break
				}
			}
		}
		if _, ok := mo.phrases[role]; ok || (role != "affirm" && role != "deny") {
			continue
		}
		// Else an intent whose name ends with one (confirmation_yes,
		// confirmation.no), the first in the machine's order.
		for id, intent := range mo.m.Intents() {
			words := strings.FieldsFunc(strings.ToLower(intent), func(r rune) bool { return r == '_' || r == '.' || r == '-' })
			if len(words) < 2 || !slices.Contains(names, words[len(words)-1]) {
				continue
			}
			if ph, ok := mo.intentPh[engine.IntentID(id)]; ok {
				mo.phrases[role] = ph
				break
			}
		}
	}
	if _, ok := mo.phrases["off_topic"]; !ok {
		mo.phrases["off_topic"] = "what's the weather like?"
	}
	if _, ok := mo.phrases["correction"]; !ok {
		mo.phrases["correction"] = "actually, change the {slot} to {value}"
	}
}

func (mo *Model) correction(slot, value string) string {
	r := strings.NewReplacer("{slot}", slot, "{value}", value)
	return r.Replace(mo.phrases["correction"])
}

// SlotValues returns, per slot, the values simulated users give it: the
// goals' values first, then values derived from validators and entities.
func (mo *Model) SlotValues() map[engine.SlotID][]string {
	out := map[engine.SlotID][]string{}
	for _, g := range mo.goals {
		for i, s := range g.slots {
			if g.plain != nil {
				// A derived goal's values as the validators and types give
				// them: the explorer takes the machine's own values by its
				// own way.
				out[s] = append(out[s], g.plain[i]...)
				continue
			}
			out[s] = append(out[s], g.values[i]...)
		}
	}
	for s, xs := range mo.slotValues {
		out[s] = append(out[s], xs...)
	}
	return out
}

// deriveUtterances gathers the texts the model knows (every phrase of
// nlu.yaml's rules, entity synonyms, goal and slot values, role phrases),
// shortest first, each once: the candidates shrinking tries in place of a
// user's words.
func (mo *Model) deriveUtterances(s *spec.Suite) {
	seen := map[string]bool{}
	add := func(xs ...string) {
		for _, x := range xs {
			if x = strings.TrimSpace(x); x != "" && !seen[x] {
				seen[x] = true
				mo.utterances = append(mo.utterances, x)
			}
		}
	}
	if n := s.NLU; n != nil {
		for _, r := range n.Intents {
			add(r.Value.Exact...)
			add(r.Value.Keywords...)
		}
		for _, e := range n.Entities {
			for _, v := range e.Value.Values {
				add(v.Key)
				add(v.Value...)
			}
		}
	}
	for _, ph := range mo.intentPh {
		add(ph)
	}
	for _, g := range mo.goals {
		for _, vs := range g.values {
			add(vs...)
		}
		for _, l := range g.lists {
			add(l.items...)
		}
	}
	for _, vs := range mo.slotValues {
		add(vs...)
	}
	for _, ph := range mo.phrases {
		if !strings.Contains(ph, "{") {
			add(ph)
		}
	}
	sort.Slice(mo.utterances, func(i, j int) bool {
		a, b := mo.utterances[i], mo.utterances[j]
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		return a < b
	})
}

// yesNoSlot reports whether slot s holds the answer to a yes/no question:
// a bool slot, or one named for confirming.
func yesNoSlot(m *engine.Machine, s engine.SlotID) bool {
	return m.SlotType(s) == engine.TypeBool || strings.Contains(strings.ToLower(m.SlotName(s)), "confirm")
}
