/*
 * The explorer page's own script (a browser script, not a module; served at /graphiql/explorer.js). The token lives
 * in sessionStorage (this tab only) and leaves the page only as `Authorization: Bearer` on POSTs to /graphql on
 * this host; without one, nothing is sent.
 */
(function () {
  'use strict';
  var KEY = 'tender-exchange.explorer.token';
  var form = document.getElementById('explorer-token-form');
  var input = document.getElementById('explorer-token');
  var clear = document.getElementById('explorer-token-clear');
  var status = document.getElementById('explorer-token-status');
  var token = '';
  try {
    token = sessionStorage.getItem(KEY) || '';
  } catch (e) {
    token = '';
  }
  input.value = token;

  function asResult(response) {
    return response.text().then(function (text) {
      try {
        return JSON.parse(text);
      } catch (e) {
        return { errors: [{ message: 'HTTP ' + response.status + ': ' + text.slice(0, 500) }] };
      }
    });
  }

  function makeFetcher() {
    return function fetcher(params) {
      if (!token) {
        return Promise.resolve({
          errors: [
            {
              message:
                'Paste a bearer token in the field above (POST /auth/token gives one); ' + input.getAttribute('data-schema-hint') + '.',
            },
          ],
        });
      }
      return fetch('/graphql', {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/graphql-response+json, application/json',
          Authorization: 'Bearer ' + token,
        },
        body: JSON.stringify(params),
        credentials: 'omit',
        cache: 'no-store',
      }).then(asResult);
    };
  }

  var params = new URLSearchParams(window.location.search);
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  var generation = 0;
  function render() {
    status.textContent = token ? 'token set (kept in this tab only)' : 'no token';
    // A new token mounts GraphiQL afresh: it loads the schema with the token, and shows no answer given to the
    // old one (its tabs and queries come back from its storage). A query in the URL fills the first editor only.
    root.render(
      React.createElement(GraphiQL, {
        key: generation,
        fetcher: makeFetcher(),
        query: generation === 0 ? params.get('query') || undefined : undefined,
        variables: generation === 0 ? params.get('variables') || undefined : undefined,
        defaultEditorToolsVisibility: false,
        // No Headers tab: GraphiQL's query history keeps the headers of every query in localStorage, whatever
        // shouldPersistHeaders says. The token field is the one place for the token.
        isHeadersEditorEnabled: false,
        shouldPersistHeaders: false,
      }),
    );
    generation += 1;
  }

  var pending;
  function useToken(value) {
    token = value.trim().replace(/^Bearer\s+/i, '');
    try {
      if (token) sessionStorage.setItem(KEY, token);
      else sessionStorage.removeItem(KEY);
    } catch (e) {
      /* storage unavailable: the token stays in this page only */
    }
    clearTimeout(pending);
    pending = setTimeout(render, 300);
  }
  input.addEventListener('input', function () {
    useToken(input.value);
  });
  // The token is never submitted anywhere (the CSP's form-action 'none' agrees): Enter only applies it.
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    useToken(input.value);
  });
  clear.addEventListener('click', function () {
    input.value = '';
    useToken('');
  });
  render();
})();
