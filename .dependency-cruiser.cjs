/**
 * The import directions of DESIGN 6, checked by `npm run lint:deps` (in CI):
 *
 *   platform  ←  access  ←  parties, insurers  ←  links, auth, tenders  ←  risk  ←  quotes  ←  statistics, documents  ←  messages  ←  mail  ←  privacy  ←  webhooks  ←  api  ←  main, cli, seed
 *
 * A folder imports only from folders to its left, and only those each rule below names (tenders and quotes need
 * nothing of auth, so they may not import it), and a feature only through its front door (below). Entities may name each other across features (a tender's ordered
 * option is a quote option); nothing else goes back up. Every HTTP route is in src/api (the web frameworks are
 * imported nowhere else). The insurer simulator is an independent peer: it imports nothing from the gateway.
 */
const layer = (name, mayImport) => ({
  name: `${name}-imports-only-below`,
  comment: `src/${name} may import ${mayImport.length ? mayImport.join(', ') : 'nothing else in src'} and itself`,
  severity: 'error',
  from: { path: `^src/${name}/` },
  to: {
    path: '^src/',
    pathNot: [`^src/${name}/`, ...mayImport.map((folder) => `^src/${folder}/`)],
  },
});

const FEATURE_BASE = ['platform', 'access'];

/**
 * Each feature has one front door, its index.ts: from outside the feature (the other features, api, the composition,
 * bench) a feature is imported only through it. An entity may still name another feature's entity file: the ORM's
 * relation graph crosses features, and a face would load the whole feature while the entities are being defined.
 */
const FEATURES = [
  'access',
  'parties',
  'insurers',
  'links',
  'auth',
  'tenders',
  'risk',
  'quotes',
  'statistics',
  'documents',
  'messages',
  'privacy',
  'webhooks',
  'mail',
];
const ENTITY = '\\.(entity|embeddable)\\.ts$';
const frontDoor = (feature) => [
  {
    name: `${feature}-only-through-its-front-door`,
    comment: `outside src/${feature}, import it through src/${feature}/index.ts only`,
    severity: 'error',
    from: { path: '^(src|bench)/', pathNot: [`^src/${feature}/`, ENTITY] },
    to: { path: `^src/${feature}/`, pathNot: `^src/${feature}/index\\.ts$` },
  },
  {
    name: `${feature}-only-through-its-front-door-or-entities`,
    comment: `an entity outside src/${feature} names its entities, or imports it through src/${feature}/index.ts`,
    severity: 'error',
    from: { path: ENTITY, pathNot: `^src/${feature}/` },
    to: { path: `^src/${feature}/`, pathNot: [`^src/${feature}/index\\.ts$`, ENTITY] },
  },
];

module.exports = {
  forbidden: [
    layer('platform', []),
    layer('access', ['platform']),
    layer('parties', FEATURE_BASE),
    layer('insurers', FEATURE_BASE),
    // Capability links: a token in a URL for one page of one tender; the features that make links import it.
    layer('links', [...FEATURE_BASE, 'parties']),
    layer('auth', [...FEATURE_BASE, 'parties', 'insurers']),
    {
      ...layer('tenders', [...FEATURE_BASE, 'parties', 'insurers']),
      from: { path: '^src/tenders/', pathNot: '\\.entity\\.ts$' },
    },
    {
      ...layer('tenders', [...FEATURE_BASE, 'parties', 'insurers']),
      name: 'tender-entities-import-only-below-and-quote-entities',
      // A tender references the quote option cover was ordered on: an entity relation, not a dependency on quotes.
      from: { path: '^src/tenders/.+\\.entity\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/(tenders|platform|access|parties|insurers)/', '^src/quotes/.+\\.entity\\.ts$'] },
    },
    // The risk assessment: question sets per product, insurers' requirements, a tender's answers.
    layer('risk', [...FEATURE_BASE, 'parties', 'insurers', 'links', 'tenders']),
    layer('quotes', [...FEATURE_BASE, 'parties', 'insurers', 'links', 'tenders', 'risk']),
    layer('statistics', [...FEATURE_BASE, 'insurers', 'tenders', 'quotes']),
    // parties: the personal-data port documents implement (their part of a customer's erasure and export).
    layer('documents', [...FEATURE_BASE, 'parties', 'tenders', 'quotes']),
    // Clarification threads: a tender's broker and one insurer, pointing to the tender's documents.
    layer('messages', [...FEATURE_BASE, 'parties', 'insurers', 'tenders', 'quotes', 'documents']),
    // Privacy runs every feature's part of a customer's personal data (the export, the erasure: parties' PersonalData
    // port, which each feature implements) and is recorded into from below
    // through the access layer's port (access-recorder.ts): every surface records, none imports privacy.
    // Privacy erases and exports the mails' recipients (mail's PersonalData part), so mail sits below it.
    layer('privacy', [...FEATURE_BASE, 'parties', 'insurers', 'links', 'tenders', 'risk', 'quotes', 'documents', 'messages', 'mail']),
    layer('webhooks', [
      ...FEATURE_BASE,
      'parties',
      'insurers',
      'links',
      'auth',
      'tenders',
      'risk',
      'quotes',
      'documents',
      'messages',
      'privacy',
    ]),
    // Mail listens to the same events as webhooks and mails the people they concern; below privacy, which erases its recipients.
    layer('mail', [...FEATURE_BASE, 'parties', 'insurers', 'links', 'tenders', 'risk', 'quotes', 'documents', 'messages']),
    ...FEATURES.flatMap(frontDoor),
    {
      name: 'api-imports-features-not-composition',
      comment: 'the API adapts the features; it does not reach into the start, the CLI, the seed data or the simulator',
      severity: 'error',
      from: { path: '^src/api/' },
      to: { path: '^src/(main\\.ts|database\\.ts|cli/|seed/|insurer-sim/)' },
    },
    {
      name: 'http-only-in-api',
      comment: 'every HTTP route is in src/api: the web frameworks are imported nowhere else (the simulator is its own app)',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/api/', '^src/insurer-sim/'] },
      to: { path: 'node_modules/(express|@apollo/server|@as-integrations|helmet|cors)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'nothing-depends-on-api',
      comment: 'the API is the outermost adapter: only main.ts and the CLI start it',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/api/', '^src/main\\.ts$', '^src/cli/'] },
      to: { path: '^src/api/' },
    },
    {
      name: 'insurer-sim-is-a-peer',
      comment: 'the insurer simulator speaks the specification over HTTP and imports nothing of the gateway',
      severity: 'error',
      from: { path: '^src/insurer-sim/' },
      to: { path: '^src/', pathNot: '^src/insurer-sim/' },
    },
    {
      name: 'demo-is-a-client',
      comment: 'npm run demo speaks the public APIs over HTTP, as an integrator would, and imports nothing of the gateway',
      severity: 'error',
      from: { path: '^src/demo/' },
      to: { path: '^src/', pathNot: '^src/demo/' },
    },
    {
      name: 'only-composition-imports-the-simulator',
      comment: 'the demo start and its seed data run the simulator; the product does not know it',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/insurer-sim/', '^src/main\\.ts$', '^src/seed/', '^src/cli/'] },
      to: { path: '^src/insurer-sim/' },
    },
    {
      name: 'no-cycles',
      comment: 'modules import each other in one direction (entities that reference each other excepted)',
      severity: 'error',
      from: { pathNot: '\\.entity\\.ts$' },
      to: { circular: true, viaOnly: { pathNot: '\\.entity\\.ts$' } },
    },
    {
      name: 'no-orphans',
      comment:
        'a module nothing imports and that imports nothing is dead code, or an entry point: the starts (main, the CLI, ' +
        'the simulator), the demo and the benchmark are run by npm scripts; type declarations are read by the compiler; ' +
        "the explorer's and the pages' own scripts are browser scripts, served as files",
      severity: 'error',
      from: {
        orphan: true,
        pathNot: [
          '^src/main\\.ts$',
          '^src/cli/main\\.ts$',
          '^src/insurer-sim/main\\.ts$',
          '^src/demo/',
          '^bench/run\\.ts$',
          '\\.d\\.ts$',
          '^src/api/rest/explorer/explorer\\.js$',
          '^src/api/pages/assets/pages\\.js$',
        ],
      },
      to: {},
    },
    {
      name: 'no-test-code-in-product',
      severity: 'error',
      from: { path: '^(src|bench)/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^src/platform/db/migrations/' },
  },
};
