// A small HTTP server for the form-filling graph in the shape of Rasa's
// REST channel: POST {"sender": "...", "message": "...", "metadata": {...}}
// is answered with [{"recipient_id": "...", "text": "..."}]. Each sender is
// a conversation; its ConversationState is kept here between messages and
// passed into the graph with each one. Besides (docs/bot-check.md):
//
//   - metadata.formulario picks the form of a new conversation (completo,
//     the default, or ejemplo): the variant selector;
//   - a message /intent{"entity": "value"} is Rasa's payload: an event
//     without text, its intent and entities given (confidence 1);
//   - POST /clock {"sender", "advance_ms"} moves the conversation's clock
//     on; when its ten minutes are up, the timeout policy runs the graph;
//   - GET /state/{sender} answers the conversation's state: the form's
//     values, the field asked for, the last message's escalation reason,
//     whether it escalated or completed.
//
// Listens on 127.0.0.1:$PORT (0: a free port) and prints "listening on
// URL" once it does.
import http from 'node:http';
import { buildGraph, newConversation } from './graph.mjs';

const graph = buildGraph();
const conversations = new Map();

// The conversation timer ("Tiempo excedido"): scenarios/formfill's
// conversation_timeout, started with the conversation, cancelled by an
// escalation or the form's completion, firing once.
const TIMEOUT_MS = 10 * 60 * 1000;

function conversationOf(sender, metadata) {
  let c = conversations.get(sender);
  if (!c) {
    c = { conversation: newConversation(metadata?.formulario === 'ejemplo' ? 'ejemplo' : 'completo'), elapsed: 0, fired: false, escalation_reason: null };
    conversations.set(sender, c);
  }
  return c;
}

// payload reads Rasa's /intent{"entity": "value"}, or returns null.
function payload(message) {
  const m = /^\/([A-Za-z0-9_]+)(\{.*\})?$/s.exec(message);
  if (!m) return null;
  let entities = {};
  if (m[2]) {
    try { entities = JSON.parse(m[2]); } catch { return null; }
  }
  return { intent: m[1], confidence: 1, entities };
}

async function run(c, input) {
  const out = await graph.invoke({ conversation: c.conversation, ...input });
  c.conversation = out.conversation;
  c.escalation_reason = out.escalation_reason;
  return out.response;
}

async function reply(sender, message, metadata) {
  const c = conversationOf(sender, metadata);
  const event = payload(message);
  const response = event
    ? await run(c, { user_message: '', metadata: { event } })
    : await run(c, { user_message: message });
  return [{ recipient_id: sender, text: response }];
}

async function advance(sender, ms, metadata) {
  const c = conversationOf(sender, metadata);
  c.elapsed += ms;
  const armed = !c.fired && !c.conversation.escalated && !c.conversation.completed;
  if (!armed || c.elapsed < TIMEOUT_MS) return [];
  c.fired = true;
  return [{ recipient_id: sender, text: await run(c, { user_message: '', metadata: { timer: true } }) }];
}

function state(sender) {
  const c = conversations.get(sender);
  if (!c) return null;
  const conv = c.conversation;
  return {
    form: conv.form,
    values: conv.values,
    current: conv.current,
    escalation_reason: c.escalation_reason,
    escalated: conv.escalated || null,
    completed: conv.completed || null,
  };
}

const json = (res, status, body) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url.startsWith('/state/')) {
    const s = state(decodeURIComponent(req.url.slice('/state/'.length)));
    if (s) json(res, 200, s);
    else res.writeHead(404).end('no such conversation\n');
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405, { Allow: 'POST', 'Content-Type': 'text/plain' }).end('POST {"sender","message"}\n');
    return;
  }
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (c) => { body += c; });
  req.on('end', async () => {
    let msg;
    try {
      msg = JSON.parse(body);
    } catch {
      res.writeHead(400).end('expected JSON {"sender","message"}\n');
      return;
    }
    const clock = req.url === '/clock';
    if (typeof msg?.sender !== 'string' || (clock ? typeof msg?.advance_ms !== 'number' : typeof msg?.message !== 'string')) {
      res.writeHead(400).end(clock ? 'expected JSON {"sender","advance_ms"}\n' : 'expected JSON {"sender","message"}\n');
      return;
    }
    try {
      const out = clock ? await advance(msg.sender, msg.advance_ms, msg.metadata) : await reply(msg.sender, msg.message, msg.metadata);
      json(res, 200, out);
    } catch (e) {
      console.error(e);
      res.writeHead(500).end('internal error\n');
    }
  });
});

server.listen(Number(process.env.PORT ?? 5005), '127.0.0.1', () => {
  const { port } = server.address();
  console.log(`listening on http://127.0.0.1:${port}/webhooks/rest/webhook`);
});
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => server.close(() => process.exit(0)));
