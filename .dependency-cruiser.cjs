/**
 * Import rules for src/ and web/ (the dashboard), checked in CI (`npm run lint:deps`). docs/architecture.md explains
 * each part and why it may import what it does; change both together.
 */

/**
 * What each part of src/ may import besides itself (docs/architecture.md, "Parts"). Leaves
 * first; a part may import only parts listed for it, so a new arrow is a decision made here.
 */
const ALLOWED = {
  domain: [],
  clock: [],
  errors: [],
  ids: [],
  signing: [],
  periodic: [],
  schema: [],
  templates: ['domain', 'errors', 'store'],
  tenants: ['errors', 'ids', 'store'],
  store: ['domain'],
  providers: ['domain', 'schema', 'signing'],
  sandbox: ['domain', 'signing'],
  metrics: ['domain'],
  observability: ['domain', 'clock', 'metrics', 'periodic', 'providers', 'signing', 'store', 'webhooks'],
  config: ['domain', 'providers', 'schema'],
  intake: ['domain', 'clock', 'errors', 'ids', 'metrics', 'providers', 'store', 'templates'],
  preferences: ['domain', 'clock', 'store'],
  delivery: ['domain', 'clock', 'errors', 'metrics', 'periodic', 'providers', 'store'],
  webhooks: ['domain', 'clock', 'errors', 'ids', 'periodic', 'signing', 'store'],
  campaigns: ['domain', 'clock', 'errors', 'ids', 'intake', 'periodic', 'providers', 'store', 'templates'],
  devices: ['domain', 'clock', 'config', 'errors', 'ids', 'periodic', 'providers', 'store'],
  http: [
    'domain',
    'clock',
    'errors',
    'ids',
    'campaigns',
    'delivery',
    'devices',
    'intake',
    'metrics',
    'preferences',
    'providers',
    'store',
    'templates',
    'tenants',
    'webhooks',
  ],
  runtime: [
    'domain',
    'clock',
    'campaigns',
    'config',
    'delivery',
    'devices',
    'http',
    'intake',
    'metrics',
    'observability',
    'periodic',
    'preferences',
    'providers',
    'store',
    'templates',
    'webhooks',
  ],
  cli: ['domain', 'ids', 'clock', 'errors', 'config', 'devices', 'http', 'intake', 'providers', 'runtime', 'sandbox', 'signing', 'store', 'tenants'],
};

/** `src/<part>/` for folders, `src/<part>.ts` for the two root files. */
const partPath = (part) => `^src/(${part}/|${part}\\.ts$)`;

const partRules = Object.entries(ALLOWED).map(([part, allowed]) => ({
  name: `imports-of-${part}`,
  severity: 'error',
  comment: `src/${part} may import only: ${allowed.length ? allowed.join(', ') : 'nothing else in src/'} (see ALLOWED).`,
  from: { path: partPath(part) },
  to: { path: '^src/', pathNot: [partPath(part), ...allowed.map(partPath)] },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...partRules,
    {
      name: 'every-part-listed',
      severity: 'error',
      comment: 'A new folder under src/ gets a line in ALLOWED (and a paragraph in docs/architecture.md).',
      from: { path: '^src/', pathNot: Object.keys(ALLOWED).map(partPath) },
      to: {},
    },
    {
      name: 'cli-not-through-routes',
      severity: 'error',
      comment:
        'The CLI does what the HTTP routes do through the same services (tenants/ for tenants and keys), never by importing a route or the request auth: a route is one way in, not a library.',
      from: { path: '^src/cli/' },
      to: { path: ['^src/http/routes/', '^src/http/auth\\.ts$'] },
    },
    {
      name: 'http-app-loaded-on-use',
      severity: 'error',
      comment:
        'The runtime imports the HTTP app (Fastify, the routes, their schemas) only where it builds it, with import(): a `herald worker` never builds it, and ~4 MB more live heap costs ~4 times that in peak RSS under V8\'s heap growth (docs/benchmarks.md, "Memory: where the peak RSS goes").',
      from: { path: '^src/runtime/' },
      to: { path: '^src/http/(app|metrics-app)\\.ts$', dependencyTypesNot: ['dynamic-import', 'type-only'] },
    },
    {
      name: 'no-file-cycle',
      severity: 'error',
      comment: 'No file-level import cycle, type-only imports included: a cycle means two files are one module in disguise.',
      from: { path: '^(src|web)/' },
      to: { circular: true },
    },
    {
      name: 'web-apart-from-src',
      severity: 'error',
      comment:
        "The dashboard (web/) talks to Herald over HTTP only. From src/ it may import only the domain's vocabularies (the lists of states, reasons, statuses: pure constants, the same words the API speaks); the API's shapes reach it as web/src/api-types.ts, generated from the OpenAPI document (npm run api:types).",
      from: { path: '^web/' },
      to: { path: '^src/', pathNot: '^src/domain/(vocabulary|downstream)\\.ts$' },
    },
    {
      name: 'src-apart-from-web',
      severity: 'error',
      comment: "The server never imports the dashboard's code: it serves web/ as built static files.",
      from: { path: '^src/' },
      to: { path: '^web/' },
    },
    {
      name: 'no-folder-cycle',
      severity: 'error',
      comment: 'No cycle between the folders of src/: each part depends on parts below it, never back.',
      scope: 'folder',
      from: { path: '^(src|web)/' },
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment:
        'src/domain/ holds the rules and performs no I/O: it imports only itself, node:crypto for hashing (a pure function: delivery keys are SHA-256 of their identity), and temporal-polyfill for time zone rules (quiet hours; computation only, its Temporal.Now is never called).',
      from: { path: '^src/domain/' },
      to: { pathNot: ['^src/domain/', '^crypto$', '^node_modules/temporal-polyfill/', '^node_modules/temporal-spec/'] },
    },
    {
      name: 'database-clients-in-drivers',
      severity: 'error',
      comment: 'All database access goes through the Store contract: pg only in src/store/postgres/, better-sqlite3 only in src/store/sqlite/.',
      from: { path: '^src/', pathNot: '^src/store/(postgres|sqlite)/' },
      to: { path: 'node_modules/(pg|better-sqlite3)/' },
    },
    {
      name: 'drivers-apart',
      severity: 'error',
      comment: 'One driver never imports the other.',
      from: { path: '^src/store/(postgres|sqlite)/' },
      to: { path: '^src/store/(postgres|sqlite)/', pathNot: '^src/store/$1/' },
    },
    {
      name: 'store-written-once',
      severity: 'error',
      comment:
        'The store parts written once (src/store/parts/) and the contract beside them run on the Executor (src/store/sql-executor.ts), never on a driver: a driver extends them, not the other way round.',
      from: { path: '^src/store/', pathNot: '^src/store/(postgres|sqlite)/' },
      to: { path: '^src/store/(postgres|sqlite)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
  },
};
