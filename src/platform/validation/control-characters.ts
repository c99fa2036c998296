/**
 * The control characters no text the gateway takes may hold: C0 other than tab, line feed and carriage return. NUL
 * above all: PostgreSQL text cannot hold it (the statement fails), SQLite stores it and hands it on to insurers and
 * webhook receivers. The raw-body screen (src/api/http/json-body.ts) refuses NUL anywhere in a JSON body already.
 */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;

/** The first control character in `text`, as `U+0000`; undefined when there is none. */
export function controlCharacterIn(text: string): string | undefined {
  const found = CONTROL_CHARACTER.exec(text);
  return found ? `U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : undefined;
}
