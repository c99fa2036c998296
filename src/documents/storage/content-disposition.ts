/** RFC 8187 attr-char: ALPHA / DIGIT / "!" / "#" / "$" / "&" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~". */
const ATTR_CHAR = /^[A-Za-z0-9!#$&+\-.^_`|~]$/;

/** RFC 8187 value-chars of UTF-8 text: every byte outside attr-char percent-encoded (`'`, `(`, `)`, `*` included). */
function extValue(text: string): string {
  let encoded = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const character = String.fromCharCode(byte);
    encoded += byte < 0x80 && ATTR_CHAR.test(character) ? character : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return `UTF-8''${encoded}`;
}

/**
 * `attachment` with the stored (already safe) file name (RFC 6266): the name itself in `filename*` (RFC 8187: UTF-8,
 * percent-encoded outside attr-char), and an ASCII fallback in `filename` for clients without RFC 8187 (non-ASCII,
 * `"`, `\` and `%`, which some clients decode, as `_`). No browser renders a document inline or reads a path from it.
 */
export function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/gu, '_');
  return `attachment; filename="${fallback}"; filename*=${extValue(filename)}`;
}
