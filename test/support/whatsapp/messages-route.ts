/**
 * `POST /{version}/{phone_number_id}/messages`, as the Cloud API reference
 * describes it (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages):
 * `messaging_product: "whatsapp"`, `to`, `type` (text by default) and the
 * type's object. Refused as WhatsApp refuses: a missing or wrong parameter
 * (100, naming it), a text body over 4,096 characters, a media id that is not
 * an upload of this number, a template not approved (132001), any message
 * but a template to a customer whose 24-hour window is closed (131047), and
 * the throughput limits (130429, 131056). Answers
 *
 *   {"messaging_product": "whatsapp", "contacts": [{"input": "<to>", "wa_id": "<to>"}], "messages": [{"id": "wamid.…"}]}
 */
import { invalidParameter, reEngagement, templateMissing } from './graph-errors.ts';
import type { Answer, Graph, GraphRequest } from './graph-server.ts';
import type { SentMessage } from './whatsapp-store.ts';

export const MAX_TEXT_BODY = 4_096;
const SENDABLE = ['text', 'image', 'document', 'template'];

const obj = (value: unknown): Record<string, unknown> | undefined => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined);

/** The message the body asks for, checked; throws the refusal naming what is wrong. */
function parse(request: GraphRequest, graph: Graph): Omit<SentMessage, 'wamid' | 'at'> {
  let body: Record<string, unknown> | undefined;
  try {
    body = obj(JSON.parse(request.body.toString('utf8')));
  } catch {
    body = undefined;
  }
  if (body === undefined) throw invalidParameter('the body must be a JSON object');
  if (body.messaging_product !== 'whatsapp') throw invalidParameter('The parameter messaging_product is required and must be "whatsapp".');
  const to = body.to;
  if (typeof to !== 'string' || !/^\+?\d{6,20}$/.test(to)) throw invalidParameter('The parameter to is required: the customer’s phone number or wa_id.');
  const waId = to.replace(/^\+/, '');
  const type = body.type === undefined ? 'text' : body.type;
  if (typeof type !== 'string' || !SENDABLE.includes(type)) throw invalidParameter(`The parameter type must be one of ${SENDABLE.join(', ')} here.`);
  const part = obj(body[type]);
  if (part === undefined) throw invalidParameter(`The parameter ${type} is required.`);
  if (type === 'text') {
    const text = part.body;
    if (typeof text !== 'string' || text.trim() === '') throw invalidParameter("The parameter text['body'] is required.");
    if (text.length > MAX_TEXT_BODY) throw invalidParameter(`Param text['body'] must be at most ${MAX_TEXT_BODY} characters long.`);
    return { to: waId, type, body: text };
  }
  if (type === 'template') {
    const name = part.name;
    const language = obj(part.language)?.code;
    if (typeof name !== 'string' || typeof language !== 'string') throw invalidParameter("The parameters template['name'] and template['language']['code'] are required.");
    if (!graph.store.templates.has(`${name} ${language}`)) throw templateMissing(name, language);
    return { to: waId, type, template: { name, language } };
  }
  const mediaId = part.id;
  if (typeof mediaId !== 'string') throw invalidParameter(`The parameter ${type}['id'] is required (a link is not taken here).`);
  const media = graph.store.media.get(mediaId);
  if (media === undefined || media.from !== 'business') throw invalidParameter(`${type}['id'] ${mediaId} is not a media id uploaded by this phone number.`);
  const filename = typeof part.filename === 'string' ? part.filename : undefined;
  return { to: waId, type, mediaId, ...(filename === undefined ? {} : { filename }) };
}

export function sendMessage(request: GraphRequest, graph: Graph): Answer {
  const message = parse(request, graph);
  if (message.type !== 'template' && !graph.store.windowOpen(message.to)) throw reEngagement();
  graph.store.takeSend(message.to);
  const sent: SentMessage = { ...message, wamid: graph.store.wamid(), at: Date.now() };
  graph.store.sent.push(sent);
  graph.onSent(sent);
  const status = message.type === 'template' ? { message_status: 'accepted' } : {};
  return { status: 200, json: { messaging_product: 'whatsapp', contacts: [{ input: message.to, wa_id: message.to }], messages: [{ id: sent.wamid, ...status }] } };
}
