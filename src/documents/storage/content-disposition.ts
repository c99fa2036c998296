/**
 * `attachment` with the stored (already safe) file name: an ASCII fallback in `filename`, the name itself in
 * `filename*` (RFC 6266, RFC 8187), so no browser renders a document inline or reads a path from it.
 */
export function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
