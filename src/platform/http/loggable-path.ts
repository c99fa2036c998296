/**
 * A request's path as logs and traces may keep it: a document's upload URL and download link are credentials in
 * their path (no bearer token goes with them), so that segment is replaced; anyone reading logs could use it otherwise.
 */
export const loggablePath = (path: string): string => path.replace(/(\/document-(?:uploads|links)\/)[^/?#]+/, '$1<credential>');
