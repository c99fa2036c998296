import { Eta } from 'eta';
import type { Response } from 'express';
import { PAGE_LANGUAGES, PAGE_TEXTS, type MessageKind, type PageLanguage, type PageTexts } from './page-texts';

/** Where the pages' own stylesheet and script are served (page-assets.ts). */
export const PAGE_ASSETS_PATH = '/pages/assets';

/**
 * The frame of every page: the language on `<html>`, a skip link, the language switch, the main landmark, the one
 * stylesheet (a file of this gateway) and, when a page has one, its script by its nonce. Every value is escaped
 * (eta's autoEscape); only `body`, a page rendered by these same templates, goes in as it is.
 */
const LAYOUT = `<!doctype html>
<html lang="<%= it.lang %>">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title><%= it.title %> – <%= it.t.site %></title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${PAGE_ASSETS_PATH}/pages.css">
</head>
<body>
<a class="skip-link" href="#main"><%= it.t.skip %></a>
<header class="site-header">
<span class="site-name"><%= it.t.site %></span>
<% if (it.languages.length > 0) { %><nav aria-label="<%= it.t.languageNav %>"><ul class="languages">
<% it.languages.forEach(function (language) { %><li><a href="<%= language.href %>" lang="<%= language.code %>" hreflang="<%= language.code %>"<% if (language.current) { %> aria-current="page"<% } %>><%= language.name %></a></li>
<% }) %></ul></nav><% } %>
</header>
<main id="main" tabindex="-1">
<%~ it.body %>
</main>
<% if (it.script) { %><script src="${PAGE_ASSETS_PATH}/<%= it.script %>" nonce="<%= it.nonce %>"></script>
<% } %></body>
</html>
`;

/** The answer of a request a page cannot serve (404, 410, 403, 429, …): a heading and a sentence. */
const MESSAGE = `<h1><%= it.heading %></h1>
<p><%= it.text %></p>
`;

const eta = new Eta({ autoEscape: true, autoTrim: false });
eta.loadTemplate('@layout', LAYOUT);
eta.loadTemplate('@message', MESSAGE);

/** Registers a page's template (eta, `it` its data) under `name`; each page module registers its own at load. */
export function registerPageTemplate(name: string, template: string): void {
  eta.loadTemplate(`@${name}`, template);
}

export interface PageFrame {
  lang: PageLanguage;
  /** The per-response nonce of the Content-Security-Policy (page-security.ts). */
  nonce: string;
  /** The page's own path (with its query but for `lang`): the language switch links to it. */
  path?: string;
}

/** The language switch: the same page in each language, by `?lang=`. */
function languagesOf(frame: PageFrame): { code: PageLanguage; name: string; href: string; current: boolean }[] {
  if (!frame.path) return [];
  const [pathname, query = ''] = frame.path.split('?');
  return PAGE_LANGUAGES.map((code) => {
    const params = new URLSearchParams(query);
    params.set('lang', code);
    return {
      code,
      name: PAGE_TEXTS[frame.lang].languageNames[code],
      href: `${pathname}?${params.toString()}`,
      current: code === frame.lang,
    };
  });
}

/** Sends a page: `view`'s template with `data` (and `t`, the language's words) inside the frame. */
export function sendPage(
  res: Response,
  frame: PageFrame,
  view: string,
  data: { title: string } & Record<string, unknown>,
  options: { status?: number; script?: string } = {},
): void {
  const t: PageTexts = PAGE_TEXTS[frame.lang];
  const body = eta.render(`@${view}`, { ...data, t, lang: frame.lang, nonce: frame.nonce });
  const html = eta.render('@layout', {
    lang: frame.lang,
    nonce: frame.nonce,
    title: data.title,
    t,
    languages: languagesOf(frame),
    body,
    script: options.script,
  });
  res.status(options.status ?? 200);
  res.setHeader('Content-Language', frame.lang);
  res.type('html').send(html);
}

/** Sends the page of a request that cannot be served, in the request's language. */
export function sendMessagePage(res: Response, frame: PageFrame, status: number, kind: MessageKind): void {
  const { title, text } = PAGE_TEXTS[frame.lang][kind];
  sendPage(res, frame, 'message', { title, heading: title, text }, { status });
}
