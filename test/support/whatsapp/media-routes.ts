/**
 * Media, as the Cloud API reference describes it (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media):
 *
 *   POST /{version}/{phone_number_id}/media  multipart/form-data: messaging_product=whatsapp, type, file → {"id": "<media id>"}
 *   GET  /{version}/{media_id}               → {"messaging_product": "whatsapp", "url", "mime_type", "sha256", "file_size", "id"}
 *   GET  <url>                               the bytes, on the media host, only with the access token as Bearer
 *
 * Uploads are refused as WhatsApp refuses them: without `messaging_product`
 * or `file` (100), of a type WhatsApp does not take or over its size for the
 * type (131053: images 5 MB, audio and video 16 MB, stickers 500 KB,
 * documents 100 MB). A media id of another number, or none, is 100/33.
 */
import { mediaUploadError, invalidParameter, tokenInvalid, unsupported } from './graph-errors.ts';
import type { Answer, Graph, GraphRequest } from './graph-server.ts';

const MB = 1024 * 1024;
/** The types WhatsApp takes, with their size limit. */
const LIMITS: [RegExp, number][] = [
  [/^image\/(jpeg|png)$/, 5 * MB],
  [/^image\/webp$/, 500 * 1024],
  [/^audio\/(aac|amr|mpeg|mp4|ogg)$/, 16 * MB],
  [/^video\/(mp4|3gpp)$/, 16 * MB],
  [/^(text\/plain|application\/pdf|application\/msword|application\/vnd\.(ms-excel|ms-powerpoint|openxmlformats-officedocument\.[\w.]+))$/, 100 * MB],
];

export async function uploadMedia(request: GraphRequest, graph: Graph): Promise<Answer> {
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(request.body), { headers: { 'content-type': request.headers['content-type'] ?? '' } }).formData();
  } catch {
    throw invalidParameter('the body must be multipart/form-data');
  }
  if (form.get('messaging_product') !== 'whatsapp') throw invalidParameter('The parameter messaging_product is required and must be "whatsapp".');
  const file = form.get('file');
  if (!(file instanceof Blob)) throw invalidParameter('The parameter file is required.');
  const type = String(form.get('type') ?? file.type ?? '').split(';')[0]!.trim().toLowerCase();
  const limit = LIMITS.find(([pattern]) => pattern.test(type))?.[1];
  if (limit === undefined) throw mediaUploadError(`Unsupported file type: ${type || 'none given'}`);
  const content = Buffer.from(await file.arrayBuffer());
  if (content.length > limit) throw mediaUploadError(`The ${type} file is ${content.length} bytes, over the ${limit} bytes allowed for its type`);
  const filename = file instanceof File ? file.name : undefined;
  const media = graph.store.addMedia(content, type, 'business', filename);
  return { status: 200, json: { id: media.id } };
}

export function mediaInfo(request: GraphRequest, graph: Graph, mediaId: string): Answer {
  const media = graph.store.media.get(mediaId);
  if (media === undefined) throw unsupported(request.method, mediaId);
  const url = `${graph.mediaHostUrl}/whatsapp_business/attachments/?mid=${media.id}&ext=${Math.floor(Date.now() / 1000)}&hash=${media.hash}`;
  return { status: 200, json: { messaging_product: 'whatsapp', url, mime_type: media.mimeType, sha256: media.sha256, file_size: media.content.length, id: media.id } };
}

/** The media host: the bytes of `?mid=…&hash=…`, for the access token only. */
export function downloadMedia(request: GraphRequest, graph: Graph): Answer {
  if (request.headers.authorization !== `Bearer ${graph.accessToken}`) throw tokenInvalid();
  const media = graph.store.media.get(request.query.get('mid') ?? '');
  if (media === undefined || request.query.get('hash') !== media.hash) return { status: 404, raw: Buffer.from('Not Found'), headers: { 'content-type': 'text/plain' } };
  graph.mediaDownloads.push(media.id);
  return { status: 200, raw: media.content, headers: { 'content-type': media.mimeType } };
}
