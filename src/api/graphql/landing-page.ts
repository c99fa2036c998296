import type { ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';

/** The self-hosted explorer (src/api/rest/explorer), which needs no internet. */
const OFFLINE_EXPLORER = '/graphiql';

const OFFLINE_LINK = `<p>The gateway serves an explorer that needs no internet: <a href="${OFFLINE_EXPLORER}">open it at ${OFFLINE_EXPLORER}</a>.</p>`;

/**
 * Apollo Sandbox, the page a browser's GET of /graphql gets, loads its script from Apollo's CDN; offline its page
 * says only that it cannot be loaded. The link to /graphiql is written into that message in the HTML itself, so
 * it is there exactly when the script is not (online, the Sandbox covers the message), and can be clicked.
 */
export function sandboxWithOfflineLink(): ApolloServerPlugin {
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
