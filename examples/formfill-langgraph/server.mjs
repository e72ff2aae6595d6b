// A small HTTP server for the form-filling graph in the shape of Rasa's
// REST channel: POST {"sender": "...", "message": "..."} is answered with
// [{"recipient_id": "...", "text": "..."}]. Each sender is a conversation;
// its ConversationState is kept here between messages and passed into the
// graph with each one. Listens on 127.0.0.1:$PORT (0: a free port) and
// prints "listening on URL" once it does.
import http from 'node:http';
import { buildGraph, newConversation } from './graph.mjs';

const graph = buildGraph();
const conversations = new Map();

async function reply(sender, message) {
  const conversation = conversations.get(sender) ?? newConversation();
  const out = await graph.invoke({ conversation, user_message: message });
  conversations.set(sender, out.conversation);
  return [{ recipient_id: sender, text: out.response }];
}

const server = http.createServer((req, res) => {
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
    if (typeof msg?.sender !== 'string' || typeof msg?.message !== 'string') {
      res.writeHead(400).end('expected JSON {"sender","message"}\n');
      return;
    }
    try {
      const out = await reply(msg.sender, msg.message);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(out));
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
