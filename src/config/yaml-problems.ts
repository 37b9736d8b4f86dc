/**
 * Reading the settings text as YAML, its syntax errors as problems with line
 * and column. One mistake often derails the parser for the rest of the file
 * (an unclosed `{` turns every later line into an "unexpected token"), so the
 * first error is reported, with every later one that is itself a known
 * mistake, and the rest counted in one closing line.
 *
 * The known mistake: `${VAR}` unquoted inside `{ … }` or `[ … ]`, where `{`
 * opens a mapping — `imap: { password: ${IMAP_PASSWORD} }` must quote it,
 * `password: "${IMAP_PASSWORD}"`.
 */
import { LineCounter, parseDocument, type Document, type YAMLError } from 'yaml';
import type { ConfigProblem } from './errors.ts';

export type YamlReading = { doc: Document.Parsed; problems?: undefined } | { doc?: undefined; problems: ConfigProblem[] };

export function readYaml(text: string): YamlReading {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, lineCounter });
  if (doc.errors.length === 0) return { doc };
  return { problems: yamlProblems(text, doc.errors, lineCounter) };
}

function yamlProblems(text: string, errors: readonly YAMLError[], lines: LineCounter): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const seen = new Set<string>();
  let more = 0;
  errors.forEach((error, i) => {
    const offset = error.pos[0];
    const placeholder = unquotedPlaceholder(text, offset);
    if (i > 0 && placeholder === undefined) {
      more++;
      return;
    }
    const { line, col } = lines.linePos(placeholder?.offset ?? offset);
    if (seen.has(`${line}:${col}`)) return;
    seen.add(`${line}:${col}`);
    const message =
      placeholder === undefined
        ? `YAML: ${error.message.split('\n')[0]!.replace(/: ".*"$/s, '')}` // the line and column show the text, which may be a secret
        : `YAML: ${placeholder.text} inside { … } or [ … ] must be quoted: "${placeholder.text}"`;
    problems.push({ path: '', line, column: col, message });
  });
  if (more > 0) {
    const above = problems.length === 1 ? 'the one above' : 'those above';
    problems.push({ path: '', message: `YAML: ${more} more syntax error(s) further on, which often follow from ${above}; fix that and check again` });
  }
  return problems;
}

/** `${…}` where the parser stumbled over its `{` (or its `$`): a placeholder in a flow collection, unquoted. */
function unquotedPlaceholder(text: string, offset: number): { text: string; offset: number } | undefined {
  const start = text[offset] === '{' && text[offset - 1] === '$' ? offset - 1 : text.startsWith('${', offset) ? offset : -1;
  if (start < 0) return undefined;
  const found = /^\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}\n]*)?\}/.exec(text.slice(start));
  return found ? { text: found[0], offset: start } : undefined;
}
