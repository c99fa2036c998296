import { Type } from '@sinclair/typebox';
import { Reference, replaceForbidden, text } from '../platform/validation/rules';

/** The content types a document may have; each is checked against the bytes (upload-check.ts). */
export const DOCUMENT_CONTENT_TYPES = [
  'application/pdf',
  'image/png',
  'image/jpeg',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'text/plain',
  'text/csv',
] as const;
export type DocumentContentType = (typeof DOCUMENT_CONTENT_TYPES)[number];

/**
 * The content types a stored document may have: an upload's, and the advice export's JSON (no upload's: nobody uploads
 * ADVICE documents, the gateway writes their bytes itself).
 */
export const STORED_CONTENT_TYPES = [...DOCUMENT_CONTENT_TYPES, 'application/json'] as const;

/**
 * A tender's capacity, in shares (issue 37: one party's unused slots blocked the others): the broker side (its RISK,
 * OTHER and ADVICE documents, and a POLICY document added before the tender has a winner) holds at most this many,
 * upload slots included...
 */
export const DOCUMENTS_BROKER_SIDE = 100;
/** ...and each insurer at most this many of its own (its QUOTE documents; the winner's POLICY documents too). */
export const DOCUMENTS_PER_INSURER = 20;

const FILENAME_BYTES = 255;

/** createDocumentUpload's input, the size's maximum being the configuration's (DOCUMENT_MAX_BYTES). */
export const documentUploadRules = (maxBytes: number) =>
  Type.Object({
    tenderId: Reference,
    // The one text rule, one line: a control character (CR and LF too), an invisible or bidi format character or a
    // separator is refused, naming it, not replaced (docs/documents.md).
    filename: text({
      max: 1024,
      lines: 'line',
      required: true,
      description:
        'a file name of 1 to 255 bytes, one line, without control, invisible format, bidi, separator, private-use or unassigned characters',
    }),
    contentType: Type.Union(
      DOCUMENT_CONTENT_TYPES.map((type) => Type.Literal(type)),
      { description: `one of ${DOCUMENT_CONTENT_TYPES.join(', ')}` },
    ),
    size: Type.Integer({ minimum: 1, maximum: maxBytes, description: `the size in bytes, 1 to ${maxBytes}` }),
    sha256: Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'the SHA-256 of the bytes, 64 hex digits' }),
    quoteRequestId: Type.Optional(Type.Union([Reference, Type.Null()])),
  });

/**
 * A file name safe to store and to send back in Content-Disposition: the last path segment only, what the text rule
 * refuses (rules.ts: controls, invisible and bidi format characters, separators, private-use and unassigned code
 * points) and quoting characters replaced, at most 255 bytes (UTF-8, cut on a character boundary, the extension
 * kept). Null when nothing is left. A person's name that the rule refuses never reaches it (the schema refuses it);
 * an insurer's listed document whose name it would change is refused (quote-document-fetch.ts).
 */
export function safeFilename(given: string): string | null {
  const base = given.split(/[/\\]/).pop() ?? '';
  let name = replaceForbidden(base, '_')
    .replace(/["*:<>?|]/g, '_')
    .trim();
  name = name.replace(/^\.+/, '');
  if (name === '') return null;
  if (Buffer.byteLength(name) <= FILENAME_BYTES) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
  let stem = name.slice(0, name.length - extension.length);
  while (Buffer.byteLength(stem + extension) > FILENAME_BYTES) stem = [...stem].slice(0, -1).join('');
  return stem + extension;
}

/**
 * How long the S3 store's presigned link that the content route and a download link redirect to stays valid (at most
 * DOCUMENT_LINK_TTL): only long enough to follow the redirect, since visibility was checked when it was handed out.
 */
export const REDIRECT_TTL_MS = 60_000;
