import type { ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';

/** The self-hosted explorer (src/api/rest/explorer), which needs no internet. */
const OFFLINE_EXPLORER = '/graphiql';

/**
 * The page a browser gets at /graphql in production: the gateway's own, with nothing from any other host (Apollo's
 * landing pages, Sandbox and its production page alike, load their scripts from Apollo's CDN). No script, no style:
 * the gateway's `default-src 'none'` policy stays on it (graphql.routes.ts).
 */
const LOCAL_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>Tender Exchange gateway – GraphQL</title>
  </head>
  <body>
    <h1>Tender Exchange GraphQL</h1>
    <p>This is the GraphQL endpoint: send operations with <code>POST</code> (or queries with <code>GET</code>) and an <code>Authorization: Bearer</code> token.</p>
    <p>To explore the schema and run queries in this browser, open the explorer the gateway serves: <a href="${OFFLINE_EXPLORER}">${OFFLINE_EXPLORER}</a>.</p>
  </body>
</html>
`;

/** The landing page of /graphql: Apollo Sandbox with a link to /graphiql in development, the gateway's own page in production. */
export function graphqlLandingPage(production: boolean): ApolloServerPlugin {
  if (!production) return sandboxWithOfflineLink();
  return {
    async serverWillStart() {
      return {
        async renderLandingPage() {
          return { html: LOCAL_PAGE };
        },
      };
    },
  };
}

const OFFLINE_LINK = `<p>The gateway serves an explorer that needs no internet: <a href="${OFFLINE_EXPLORER}">open it at ${OFFLINE_EXPLORER}</a>.</p>`;

/**
 * Apollo Sandbox, the page a browser's GET of /graphql gets, loads its script from Apollo's CDN; offline its page
 * says only that it cannot be loaded. The link to /graphiql is written into that message in the HTML itself, so
 * it is there exactly when the script is not (online, the Sandbox covers the message), and can be clicked.
 */
function sandboxWithOfflineLink(): ApolloServerPlugin {
  const sandbox = ApolloServerPluginLandingPageLocalDefault({ embed: true, includeCookies: false });
  return {
    async serverWillStart(service) {
      const listener = await sandbox.serverWillStart?.(service);
      return {
        async renderLandingPage() {
          const landingPage = await listener?.renderLandingPage?.();
          if (!landingPage) throw new Error("Apollo's landing page plugin rendered no page");
          const page = typeof landingPage.html === 'string' ? landingPage.html : await landingPage.html();
          // Sandbox's frame holder covers the page even while empty, taking the clicks: until the script fills
          // it, it lets them through (a style with the page's own nonce; its policy allows no other).
          const nonce = /<style nonce=["']?([0-9a-f]+)/.exec(page)?.[1] ?? '';
          const letThrough = `<style nonce="${nonce}">#embeddableSandbox:empty { pointer-events: none; }</style>`;
          return { html: page.replace(/(<div class="fallback">[\s\S]*?<\/p>)/, `$1\n  ${OFFLINE_LINK}\n  ${letThrough}`) };
        },
      };
    },
  };
}
