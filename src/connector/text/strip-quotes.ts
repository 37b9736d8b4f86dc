/**
 * The new part of a reply: quoted history and the signature removed from
 * plain text (HTML mail arrives here already converted, blockquotes as `>`).
 *
 * Removed:
 *   - quoted lines (`>` first), wherever they are: interleaved answers stay;
 *   - the attribution line before a quote, also wrapped over up to three lines:
 *       On Mon, 4 Mar 2024 at 09:12, Jane <jane@example.com> wrote:
 *       Am 04.03.2024 um 09:12 schrieb Jana <jana@example.de>:
 *       Le lun. 4 mars 2024 à 09:12, Jean <jean@example.fr> a écrit :
 *       El lun, 4 mar 2024 a las 9:12, María <maria@example.es> escribió:
 *     (and the Dutch, Italian and Portuguese forms);
 *   - Outlook's unquoted history, from its header block to the end:
 *       -----Original Message-----        ________________________________
 *       From: …  Sent: …  To: …  Subject: …   (also localised: Von/Gesendet/Betreff, De/Envoyé/Objet…)
 *     (with or without a separator line, or squeezed onto one line by HTML),
 *     and the Outlook for Mac form `From:` / `Date:` / `To:` / `Subject:`;
 *   - the signature: a line `-- ` and everything after it (up to a forwarded message).
 *
 * Kept: a forwarded message. From a forward marker (Gmail's
 * "---------- Forwarded message ---------", Apple's "Begin forwarded
 * message:", Thunderbird's, localised forms) or an Outlook header block whose
 * Subject is `FW:`/`Fwd:`/`WG:`/`TR:`/`RV:` on, the rest is the message and
 * stays as it is, quotes included. Apple Mail puts the whole forward into a
 * quote (`<blockquote type="cite">`, so `> Begin forwarded message:`): a
 * quote that opens with a forward marker, with no attribution before it, is
 * kept too, one level of `>` removed.
 *
 * Never strips everything: when nothing would be left, the text is returned whole.
 */

const QUOTED = /^[ \t]*>/;
const SIGNATURE_DELIMITER = '-- ';

const FORWARD_MARKERS: readonly RegExp[] = [
  /^-{2,}[ \t]*(?:Forwarded message|Weitergeleitete Nachricht|Message transféré|Mensaje reenviado|Doorgestuurd bericht|Messaggio inoltrato|Mensagem encaminhada)[ \t]*-{2,}$/i,
  /^-{2,}[ \t]*Forwarded by\b/i,
  /^(?:Begin forwarded message|Anfang der weitergeleiteten Nachricht|Début du message réexpédié|Inicio del mensaje reenviado)[ \t]*:$/i,
];

/** `-----Original Message-----` and its translations. */
const ORIGINAL_MESSAGE = /^-{2,}[ \t]*(?:Original Message|Ursprüngliche Nachricht|Message d'origine|Mensaje original|Oorspronkelijk bericht|Messaggio originale|Mensagem original)[ \t]*-{2,}$/i;
/** Outlook's `________________________________`, or an HTML `<hr>` as html-to-text draws it. */
const RULE = /^(?:_{10,}|-{10,})$/;

const field = (names: string) => new RegExp(`^[ \\t]*\\*?(?:${names})[ \\t]*:`, 'i');
const FROM_FIELD = field('From|Von|De|Van|Da|Från|Fra');
const SENT_FIELD = field('Sent|Gesendet|Envoyé|Enviado|Verzonden|Inviato|Skickat|Sendt');
const DATE_FIELD = field('Date|Datum|Fecha|Data');
const TO_FIELD = field('To|An|À|Para|Aan|A|Till|Til');
const SUBJECT_FIELD = field('Subject|Betreff|Objet|Asunto|Onderwerp|Oggetto|Assunto|Ämne|Emne');
/** The whole block on one line, as HTML without line breaks converts. */
const ONE_LINE_BLOCK = /^[ \t]*\*?From:.*\bSent:.*\bSubject:/i;
/** A forward's subject: the block then holds the forwarded message, not history. */
const FORWARD_SUBJECT = /^[ \t]*\*?[^:]+:\*?[ \t]*(?:FW|FWD|WG|TR|RV|VS|ENC|Doorst)[ \t]*:/i;

const ATTRIBUTIONS: readonly RegExp[] = [
  /^On\s.{4,400}\swrote\s*:$/i,
  /^Am\s.{4,400}\sschrieb\b.{0,300}:$/i,
  /^Le\s.{4,400}\sa\s+écrit\s*:$/i,
  /^El\s.{4,400}\sescribió\s*:$/i,
  /^Op\s.{4,400}\sschreef\b.{0,300}:$/i,
  /^Il\s.{4,400}\sha\s+scritto\s*:$/i,
  /^Em\s.{4,400}\sescreveu\s*:$/i,
];
const ATTRIBUTION_START = /^(?:On|Am|Le|El|Op|Il|Em)\s/i;
const MAX_ATTRIBUTION_LINES = 3;

const isBlank = (line: string | undefined) => line === undefined || line.trim() === '';
const isForwardMarker = (line: string) => FORWARD_MARKERS.some((marker) => marker.test(line.trim()));

/** The index of the next non-blank line at or after `from`, or `lines.length`. */
function nextNonBlank(lines: readonly string[], from: number): number {
  let i = from;
  while (i < lines.length && isBlank(lines[i])) i++;
  return i;
}

/** How many lines (1–3) an attribution starting at `i` spans, or 0. */
function attributionLength(lines: readonly string[], i: number): number {
  if (!ATTRIBUTION_START.test(lines[i]?.trim() ?? '')) return 0;
  let joined = '';
  for (let k = 0; k < MAX_ATTRIBUTION_LINES && !isBlank(lines[i + k]); k++) {
    joined = `${joined} ${lines[i + k]!.trim()}`.trim();
    if (ATTRIBUTIONS.some((pattern) => pattern.test(joined))) return k + 1;
  }
  return 0;
}

type OutlookBlock = { kind: 'history' | 'forward' };

/** What the header lines from `fromAt` on look like: which Outlook shape, and the Subject line. */
function headerFieldsAt(lines: readonly string[], fromAt: number): { shape: 'sent' | 'dated' | 'mac' | 'none'; subject?: string } {
  const fromLine = lines[fromAt];
  if (fromLine === undefined) return { shape: 'none' };
  if (ONE_LINE_BLOCK.test(fromLine)) return { shape: 'sent', subject: fromLine.slice(fromLine.search(/\bSubject:/i)) };
  if (!FROM_FIELD.test(fromLine)) return { shape: 'none' };
  const window = lines.slice(fromAt + 1, fromAt + 7).filter((candidate) => !isBlank(candidate));
  const at = (pattern: RegExp) => window.findIndex((candidate) => pattern.test(candidate));
  const [sentAt, dateAt, toAt, subjectAt] = [at(SENT_FIELD), at(DATE_FIELD), at(TO_FIELD), at(SUBJECT_FIELD)];
  if (subjectAt < 0) return { shape: 'none' };
  const subject = window[subjectAt];
  if (sentAt >= 0 && sentAt < subjectAt) return { shape: 'sent', subject };
  // Outlook for Mac: From, Date, To, Subject in that order (a Gmail forward header has Subject before To).
  if (dateAt === 0 && toAt > dateAt && toAt < subjectAt) return { shape: 'mac', subject };
  if (dateAt >= 0 && dateAt < subjectAt) return { shape: 'dated', subject };
  return { shape: 'none' };
}

/** Whether an Outlook-style header block starts at line `i` (with or without a separator line first). */
function outlookBlockAt(lines: readonly string[], i: number): OutlookBlock | undefined {
  const line = lines[i]!.trim();
  const original = ORIGINAL_MESSAGE.test(line);
  const separated = original || RULE.test(line);
  const fromAt = separated ? nextNonBlank(lines, i + 1) : i;
  const fields = separated && fromAt - i > 2 ? { shape: 'none' as const } : headerFieldsAt(lines, fromAt);
  const kind = fields.subject !== undefined && FORWARD_SUBJECT.test(fields.subject) ? 'forward' : 'history';
  if (original) return { kind }; // "-----Original Message-----" needs nothing after it
  if (fields.shape === 'sent' || fields.shape === 'mac' || (separated && fields.shape === 'dated')) return { kind };
  return undefined;
}

const unquote = (line: string) => line.replace(/^[ \t]*>[ \t]?/, '');

/** The end (exclusive) of the quote block starting at `i`, if the block opens with a forward marker. */
function quotedForwardEnd(lines: readonly string[], i: number): number | undefined {
  let end = i;
  while (end < lines.length && QUOTED.test(lines[end]!)) end++;
  const opening = lines.slice(i, end).map(unquote).find((content) => !isBlank(content));
  return opening !== undefined && isForwardMarker(opening) ? end : undefined;
}

/** The new text of a reply (see the module comment); the input is LF-separated. */
export function stripQuotes(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const kept: string[] = [];
  let afterAttribution = false;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const quoteOpens = QUOTED.test(line) && (i === 0 || !QUOTED.test(lines[i - 1]!));
    const forwardEnd = quoteOpens && !afterAttribution ? quotedForwardEnd(lines, i) : undefined;
    if (forwardEnd !== undefined) {
      kept.push(...lines.slice(i, forwardEnd).map(unquote), ...lines.slice(forwardEnd));
      break;
    }
    if (!QUOTED.test(line) && isForwardMarker(line)) {
      kept.push(...lines.slice(i));
      break;
    }
    if (line === SIGNATURE_DELIMITER) {
      // Drop the signature, but not a forwarded message below it.
      i++;
      while (i < lines.length && (QUOTED.test(lines[i]!) || !isForwardMarker(lines[i]!))) i++;
      if (i < lines.length && kept.length > 0 && !isBlank(kept.at(-1))) kept.push('');
      continue;
    }
    const block = QUOTED.test(line) ? undefined : outlookBlockAt(lines, i);
    if (block?.kind === 'forward') {
      kept.push(...lines.slice(i));
      break;
    }
    if (block?.kind === 'history') break;
    const attribution = attributionLength(lines, i);
    if (attribution > 0) {
      const next = nextNonBlank(lines, i + attribution);
      if (next === lines.length || QUOTED.test(lines[next]!)) {
        i += attribution;
        afterAttribution = true;
        continue;
      }
    }
    if (!QUOTED.test(line)) {
      kept.push(line);
      if (!isBlank(line)) afterAttribution = false;
    }
    i++;
  }
  const result = kept
    .join('\n')
    .replace(/\n[ \t]*(?:\n[ \t]*)+\n/g, '\n\n')
    .replace(/^(?:[ \t]*\n)+/, '')
    .trimEnd();
  return result.trim() === '' ? text.trim() : result;
}
