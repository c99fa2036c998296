/**
 * A request's path as logs and traces may keep it: a document's upload URL and download link, the link of a page
 * for people (the questionnaire, the underwriter's page) and a mail's unsubscribe link are credentials in their path
 * (no bearer token goes with them), so that segment is replaced; anyone reading logs could use it otherwise.
 */
export const loggablePath = (path: string): string =>
  path.replace(/(\/(?:document-uploads|document-links|questionnaire|underwriting|mail\/unsubscribe)\/)[^/?#]+/, '$1<credential>');
