import { printable } from './printable.js';

/** The longest summary printed, before its ellipsis. */
const MAX_SHOWN = 200;

/**
 * Read of a body at most: a summary needs its start, and the body is the other side's, of
 * any length.
 */
const MAX_READ = 64 * 1024;

/** Elements whose content is no text a page shows. */
const HIDDEN_ELEMENTS = new Set(['head', 'script', 'style', 'title']);

const ENTITIES: Record<string, string> = {
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
  '&nbsp;': ' ',
  '&amp;': '&',
};

/**
 * A receiver's answer body as one line a person reads: an HTML page (a framework's error
 * page is a dozen lines of markup around one sentence) by its text, anything else with its
 * whitespace collapsed; cut at a word boundary with an ellipsis when longer than
 * {@link MAX_SHOWN} characters; control characters escaped, as the body is the other side's.
 */
export function summarizeBody(body: string): string {
  const head = body.slice(0, MAX_READ);
  const html = /^\s*<(!doctype|html|head|body)\b/i.test(head);
  const text = (html ? pageText(head) : head).replace(/\s+/g, ' ').trim();
  if (text === '') return html ? 'an HTML page without text' : '(no body)';
  const line = printable(cutAtWord(text, MAX_SHOWN));
  return html ? `an HTML page: ${line}` : line;
}

/** `text` up to `max` characters, cut after its last whole word, with an ellipsis. */
function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const space = text.lastIndexOf(' ', max);
  // One word longer than half the room (a token, a URL) is cut where the room ends.
  return `${text.slice(0, space > max / 2 ? space : max)}…`;
}

/**
 * The text an HTML page shows: its tags and hidden elements left out, in one pass (the page
 * is the other side's: no pattern that backtracks runs over it).
 */
function pageText(html: string): string {
  const lower = html.toLowerCase();
  let text = '';
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf('<', at);
    if (open < 0) {
      text += html.slice(at);
      break;
    }
    text += `${html.slice(at, open)} `;
    const close = html.indexOf('>', open);
    if (close < 0) break;
    at = close + 1;
    const name = /^[a-z]+/.exec(lower.slice(open + 1, Math.min(close, open + 16)))?.[0];
    if (name !== undefined && HIDDEN_ELEMENTS.has(name)) {
      const end = lower.indexOf(`</${name}`, at);
      at = end < 0 ? html.length : end;
    }
  }
  return text.replace(/&(lt|gt|quot|#39|nbsp|amp);/g, (entity) => ENTITIES[entity] ?? entity);
}
