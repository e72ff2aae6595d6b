package rasa

import (
	"go.yaml.in/yaml/v3"

	"github.com/simctl/simctl/spec"
)

// defaultsFile names the default patterns in positions and notes.
const defaultsFile = "(rasa default patterns)"

// defaultPatterns is the behaviour of Rasa's default conversation-repair
// patterns, their slots and responses, as the patterns reference page
// documents it (rasa.com/docs/reference/primitives/patterns, "Reference:
// Default Pattern Configuration"), limited to the patterns a command of
// nlu.yaml can start. A project flow of the same name replaces a pattern;
// a project response or slot of the same name replaces the default one.
const defaultPatterns = `
slots:
  continue_conversation: {type: bool}
  continue_interrupted_flow_confirmation: {type: bool}
  csat_score: {type: categorical, values: [satisfied, unsatisfied]}
responses:
  utter_ask_continue_conversation:
    - text: "Is there anything else I can help you with?"
  utter_ask_continue_interrupted_flow_confirmation:
    - text: "Would you like to continue with {{context.interrupted_flow_options}}?"
      metadata: {template: jinja}
  utter_ask_csat_score:
    - text: "How would you rate your experience today?"
  utter_ask_rephrase:
    - text: "I’m sorry I am unable to understand you, could you please rephrase?"
  utter_boolean_slot_rejection:
    - text: "Sorry, the value you provided, ` + "`{{value}}`" + `, is not valid. Please respond with a valid value."
      metadata: {template: jinja}
  utter_can_do_something_else:
    - text: "What exactly can I help you with?"
  utter_cannot_handle:
    - text: "I'm sorry, I'm not trained to help with that."
  utter_categorical_slot_rejection:
    - text: "Sorry, you responded with an invalid value - ` + "`{{value}}`" + `. Please select one of the available options."
      metadata: {template: jinja}
  utter_clarification_no_options_rasa:
    - text: "I can help, but I need more information. Please tell me a bit more about what you would like to do."
  utter_clarification_options_rasa:
    - text: "I can help, but I need more information. Which of these would you like to do: {{context.clarification_options}}?"
      metadata: {template: jinja}
  utter_closing_words:
    - text: "Okay, I'll be around in case you need further help."
  utter_corrected_previous_input:
    - text: "Ok, I am updating {{ context.corrected_slots.keys()|join(', ') }} to {{ context.new_slot_values | join(', ') }} respectively."
      metadata: {template: jinja}
  utter_csat_thank_you_satisfied:
    - text: "Thank you for your feedback! I'm glad I could help."
  utter_csat_thank_you_unsatisfied:
    - text: "Thank you for your feedback. I'm sorry I couldn't fully meet your expectations."
  utter_float_slot_rejection:
    - text: "Sorry, it seems the value you provided ` + "`{{value}}`" + ` is not a valid number. Please provide a valid number in your response."
      metadata: {template: jinja}
  utter_flow_cancelled_rasa:
    - text: "Okay, stopping {{ context.canceled_name }}."
      metadata: {template: jinja}
  utter_human_handoff_not_available:
    - text: "I understand you want to be connected to a human agent, but that's something I cannot help you with at the moment. Is there something else I can help you with?"
  utter_internal_error_rasa:
    - text: "Sorry, I am having trouble with that. Please try again in a few minutes."
  utter_flow_continue_interrupted:
    - text: "Let's continue with {{ context.previous_flow_name }}."
      metadata: {template: jinja}
  utter_free_chitchat_response:
    - text: "placeholder_this_utterance_needs_the_rephraser"
  utter_inform_code_change:
    - text: "There has been an update to my code. I need to wrap up our running dialogue and start from scratch."
  utter_no_knowledge_base:
    - text: "I am afraid, I don't know the answer. At this point, I don't have access to a knowledge base."
  utter_skip_question_answer:
    - text: "I'm here to provide you with the best assistance, and in order to do so, I kindly request that we complete this step together. Your input is essential for a seamless experience!"
  utter_user_input_empty_error_rasa:
    - text: "I see an empty message. What can I assist you with?"
  utter_user_input_too_long_error_rasa:
    - text: "I'm sorry, but your message is too long for me to process. Please keep your message concise and within a reasonable length."
flows:
  pattern_cancel_flow:
    description: Conversation repair flow that starts when a flow is cancelled
    steps:
      - action: action_cancel_flow
      - action: utter_flow_cancelled_rasa
  pattern_cannot_handle:
    description: Conversation repair flow for addressing failed command generation scenarios
    steps:
      - action: utter_ask_rephrase
  pattern_chitchat:
    description: Conversation repair flow for off-topic interactions that won't disrupt the main conversation
    steps:
      - action: utter_cannot_handle
  pattern_clarification:
    description: Conversation repair flow for handling ambiguous requests that could match multiple flows
    steps:
      - noop: true
        next:
          - if: context.names
            then: action_clarify_flows
          - else:
              - action: utter_clarification_no_options_rasa
                next: END
      - id: action_clarify_flows
        action: action_clarify_flows
      - action: utter_clarification_options_rasa
  pattern_completed:
    description: Flow that asks if the user needs more help after completing their initiated use cases
    steps:
      - collect: continue_conversation
        ask_before_filling: true
        next:
          - if: slots.continue_conversation
            then:
              - action: utter_can_do_something_else
                next: END
          - else:
              - action: utter_closing_words
                next: link_csat
              - id: link_csat
                link: pattern_customer_satisfaction
  pattern_continue_interrupted:
    description: Conversation repair flow for managing when users switch between different flows
    steps:
      - id: collect_continue_interrupted_flow_confirmation
        collect: continue_interrupted_flow_confirmation
        ask_before_filling: true
        next:
          - if: slots.continue_interrupted_flow_confirmation
            then:
              - action: action_continue_interrupted_flow
                next: END
          - else:
              - action: action_cancel_interrupted_flows
                next: END
  pattern_correction:
    description: Conversation repair flow for managing user input changes or error corrections
    steps:
      - action: action_correct_flow_slot
        next:
          - if: not context.is_reset_only
            then:
              - action: utter_corrected_previous_input
                next: END
          - else: END
  pattern_customer_satisfaction:
    description: Flow that collects customer satisfaction feedback after conversation completion
    run_pattern_completed: false
    steps:
      - collect: csat_score
        ask_before_filling: true
      - id: csat_response
        noop: true
        next:
          - if: slots.csat_score == "satisfied"
            then:
              - action: utter_csat_thank_you_satisfied
                next: END
          - if: slots.csat_score == "unsatisfied"
            then:
              - action: utter_csat_thank_you_unsatisfied
                next: END
          - else: END
  pattern_human_handoff:
    description: Conversation repair flow for switching users to a human agent if their request can't be handled
    steps:
      - action: action_handoff_metric
      - action: utter_human_handoff_not_available
  pattern_internal_error:
    description: Conversation repair flow for informing users about internal errors
    steps:
      - noop: true
        next:
          - if: context.error_type = "rasa_internal_error_user_input_too_long"
            then:
              - action: utter_user_input_too_long_error_rasa
                next: END
          - if: context.error_type = "rasa_internal_error_user_input_empty"
            then:
              - action: utter_user_input_empty_error_rasa
                next: END
          - else:
              - action: utter_internal_error_rasa
                next: END
  pattern_skip_question:
    description: Conversation repair flow for managing user intents to skip questions (steps)
    steps:
      - action: utter_skip_question_answer
  pattern_search:
    description: Flow for handling knowledge-based questions
    steps:
      - action: utter_no_knowledge_base
`

// addDefaultPatterns adds the default patterns, slots and responses the
// project does not define itself.
func (p *Project) addDefaultPatterns() error {
	doc, err := spec.ParseYAML(defaultsFile, []byte(defaultPatterns))
	if err != nil {
		return err
	}
	r := &reader{file: defaultsFile, p: p}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i].Value, root.Content[i+1]
		switch k {
		case "slots":
			for j := 0; j+1 < len(v.Content); j += 2 {
				if p.slotIdx[v.Content[j].Value] != nil {
					continue
				}
				if err := r.readSlot(v.Content[j], v.Content[j+1]); err != nil {
					return err
				}
			}
		case "responses":
			for j := 0; j+1 < len(v.Content); j += 2 {
				if err := r.readResponse(v.Content[j], v.Content[j+1], true); err != nil {
					return err
				}
			}
		case "flows":
			if err := p.readFlowsNode(r, &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{root.Content[i], v}}, true); err != nil {
				return err
			}
		}
	}
	return nil
}
