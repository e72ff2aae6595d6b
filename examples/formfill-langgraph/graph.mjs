// Seed 002's form-filling agent ("Arquitectura del Flujo Conversacional",
// ../../../shared/seeds/002_*.txt) as a LangGraph.js StateGraph: the eight
// nodes of its "Nodos" section and the four routing functions of its
// "Edges (Routing Functions)", one graph.invoke() per user message. The
// LLM calls and classifiers are the deterministic rules of rules.mjs.
//
// Where the document is silent, this follows the same modelling choices as
// scenarios/formfill/machine.yaml (the form of its variant `completo`, the
// texts of prompt_next, complete and escalate, the sentiment and
// llm_intent thresholds), so that simctl run --bot can compare the two.
import { StateGraph, Annotation, START, END } from '@langchain/langgraph';
import { parse, trim, ESCALATION_KEYWORDS, VALIDATORS } from './rules.mjs';

// The form: one field of each validator type, plus a custom pattern
// (variant `completo`); variant `ejemplo` is the Happy Path's two fields.
export const FIELDS = [
  { name: 'nombre', type: 'text', prompt: '¿Cuál es tu nombre?' },
  { name: 'email', type: 'email', prompt: '¿Cuál es tu email?' },
  { name: 'telefono', type: 'phone', prompt: '¿Cuál es tu número de teléfono?' },
  { name: 'sitio_web', type: 'url', prompt: '¿Cuál es la dirección de tu sitio web?' },
  { name: 'presupuesto', type: 'number', prompt: '¿Cuál es tu presupuesto en euros?' },
  { name: 'codigo_postal', type: 'text', pattern: /^(?:[0-9]{5})$/, prompt: '¿Cuál es tu código postal?' },
];
const FIELD = Object.fromEntries(FIELDS.map((f) => [f.name, f]));
export const FORMS = { completo: FIELDS, ejemplo: FIELDS.slice(0, 2) };

// ConversationState: the form (which of FORMS), its values and the field
// last asked for.
export const newConversation = (form = 'completo') => ({ form, values: {}, current: null, escalated: false, completed: false });

const fieldsOf = (conv) => FORMS[conv.form] ?? FIELDS;
const allFieldsCollected = (conv) => fieldsOf(conv).every((f) => conv.values[f.name] !== undefined);
const nextField = (conv) => fieldsOf(conv).find((f) => conv.values[f.name] === undefined)?.name ?? null;

const last = (init) => Annotation({ reducer: (_prev, next) => next, default: init });

// GraphState, as the document's TypedDict lists it.
const GraphState = Annotation.Root({
  conversation: last(newConversation),
  user_message: last(() => ''),
  next_action: last(() => ''),
  should_escalate: last(() => false),
  escalation_reason: last(() => null),
  is_correction: last(() => false),
  correction_field: last(() => null),
  is_off_topic: last(() => false),
  extracted_value: last(() => null),
  is_valid: last(() => false),
  current_field: last(() => null),
  response: last(() => ''),
  metadata: last(() => ({})),
});

// 1. check_escalation: the EscalationEngine's policies in priority order.
// metadata may bring the event already parsed (a payload such as
// /sentimiento_negativo) or say that the conversation's timer fired.
function check_escalation(state) {
  const nlu = state.metadata.event ?? parse(state.user_message);
  const conv = state.conversation;
  const sentiment = nlu.intent === 'sentimiento_negativo' ? -nlu.confidence : 0;
  let reason = null;
  if (ESCALATION_KEYWORDS.test(state.user_message.toLowerCase())) reason = 'keyword';
  else if (state.metadata.timer) reason = 'timeout';
  else if (sentiment <= -0.7) reason = 'sentiment';
  else if (nlu.intent === 'request_human' && nlu.confidence >= 0.7) reason = 'llm_intent';
  else if (allFieldsCollected(conv)) reason = 'completion';
  return { metadata: { nlu }, should_escalate: reason !== null, escalation_reason: reason };
}

// 2. check_correction: correction patterns (and the LLM for ambiguous
// cases), then the field named in the message.
function check_correction(state) {
  const { nlu } = state.metadata;
  const is_correction = nlu.intent === 'corregir';
  const field = nlu.entities.campo;
  const inForm = fieldsOf(state.conversation).some((f) => f.name === field);
  return { is_correction, correction_field: is_correction && field && inForm ? field : null };
}

// 3. check_off_topic: greetings, unrelated questions, topic changes.
function check_off_topic(state) {
  return { is_off_topic: state.metadata.nlu.intent === 'fuera_de_tema' };
}

// 4. extract_field: the target field (correction or current), the LLM's
// extraction, NOT_PROVIDED and INVALID normalised to None.
function extract_field(state) {
  const { nlu } = state.metadata;
  const conv = { ...state.conversation };
  conv.current = state.correction_field ?? conv.current ?? nextField(conv);
  let value;
  if (['NOT_PROVIDED', 'INVALID'].includes(nlu.entities.extraccion)) value = null;
  else value = nlu.entities.valor ? trim(nlu.entities.valor) : trim(state.user_message);
  return { conversation: conv, extracted_value: value === '' ? null : value, current_field: conv.current };
}

// 5. validate: a value, the type's validator, the custom pattern; if
// valid, the conversation state is updated.
function validate(state) {
  const f = FIELD[state.current_field];
  const v = state.extracted_value;
  const is_valid = v !== null && VALIDATORS[f.type](v) && (!f.pattern || f.pattern.test(v));
  if (!is_valid) return { is_valid };
  const conv = { ...state.conversation, values: { ...state.conversation.values, [f.name]: v } };
  return { is_valid, conversation: conv };
}

const FORMAT = {
  email: 'escribe una dirección como nombre@dominio.com',
  telefono: 'necesito al menos 7 dígitos (solo dígitos, espacios, +, -, . y paréntesis)',
  sitio_web: 'la dirección debe empezar por http:// o https://',
  presupuesto: 'escribe solo un número, por ejemplo 1500.50',
  codigo_postal: 'el código postal tiene 5 dígitos',
};
const REDIRECT = 'Entiendo, pero ahora necesito completar tu formulario. ';

// 6. prompt_next: off-topic (redirect + ask), invalid value (format + ask
// again), normal (ask for the next field).
function prompt_next(state) {
  const conv = { ...state.conversation };
  let response;
  if (state.is_off_topic) {
    conv.current = conv.current ?? nextField(conv);
    response = REDIRECT + FIELD[conv.current].prompt;
  } else if (!state.is_valid) {
    const f = conv.current;
    const what = state.extracted_value === null
      ? `No he podido obtener un valor para ${f}`
      : `"${state.extracted_value}" no es un valor válido para ${f}`;
    response = `${what}: ${FORMAT[f] ?? 'no puede estar vacío'}. ${FIELD[f].prompt}`;
  } else {
    conv.current = nextField(conv);
    response = FIELD[conv.current].prompt;
  }
  return { conversation: conv, response };
}

// 7. escalate: marks the conversation, records policy and reason, answers.
function escalate(state) {
  return {
    conversation: { ...state.conversation, escalated: true, escalation_reason: state.escalation_reason },
    response: 'Entiendo. Te paso con una persona de nuestro equipo, que seguirá la conversación.',
  };
}

// 8. complete: the thank-you message (the LLM's, as a template), marks
// the conversation completed.
function complete(state) {
  const conv = { ...state.conversation, current: null, completed: true };
  return { conversation: conv, response: `¡Gracias, ${conv.values.nombre}! Ya tenemos todos los datos del formulario.` };
}

// The routing functions, as the document writes them.
function route_after_escalation_check(state) {
  if (state.should_escalate) return 'escalate';
  return 'check_correction';
}

function route_after_correction_check(state) {
  if (state.is_correction) return 'extract_field';
  return 'check_off_topic';
}

function route_after_off_topic_check(state) {
  if (allFieldsCollected(state.conversation)) return 'complete';
  if (state.is_off_topic) return 'prompt_next';
  return 'extract_field';
}

function route_after_validate(state) {
  if (allFieldsCollected(state.conversation)) return 'complete';
  return 'prompt_next';
}

export function buildGraph() {
  return new StateGraph(GraphState)
    .addNode('check_escalation', check_escalation)
    .addNode('check_correction', check_correction)
    .addNode('check_off_topic', check_off_topic)
    .addNode('extract_field', extract_field)
    .addNode('validate', validate)
    .addNode('prompt_next', prompt_next)
    .addNode('escalate', escalate)
    .addNode('complete', complete)
    .addEdge(START, 'check_escalation')
    .addConditionalEdges('check_escalation', route_after_escalation_check, ['escalate', 'check_correction'])
    .addConditionalEdges('check_correction', route_after_correction_check, ['extract_field', 'check_off_topic'])
    .addConditionalEdges('check_off_topic', route_after_off_topic_check, ['complete', 'prompt_next', 'extract_field'])
    .addEdge('extract_field', 'validate')
    .addConditionalEdges('validate', route_after_validate, ['complete', 'prompt_next'])
    .addEdge('prompt_next', END)
    .addEdge('escalate', END)
    .addEdge('complete', END)
    .compile();
}
