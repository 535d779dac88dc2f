// The layering rules of nodes-manager, checked by dependency-cruiser on every `npm test`
// (scripts/check-layers.mjs, run by test/architecture/layering.spec.ts). docs/design.md#layering says why.
//
// Paths are relative to the repository root. npm packages resolve into node_modules/, so a rule about a package
// matches `(^|/)node_modules/<name>/`; an import that cannot be resolved keeps its bare name, matched by `^<name>$`.

/** A pattern matching the given npm packages, resolved or not. */
const npm = (...names) => `(^|/)node_modules/(${names.join('|')})(/|$)|^(${names.join('|')})(/|$)`;

/** Node built-ins that do I/O or keep time: not for pure code (node:crypto's hashing is pure and allowed). */
const IO_BUILTINS = '^(node:)?(fs|fs/promises|net|http|https|http2|dgram|dns|tls|child_process|cluster|worker_threads|timers|timers/promises|readline|process|os|v8|vm)$';

/** Test and spec files: they may use test builders, Jest and fast-check. */
const TESTS = '(\\.spec|\\.int|\\.e2e)\\.ts$|/test/|/testing/';

module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment:
        'A service\'s domain/ holds pure decisions: it may import its own domain/, libs/contracts, libs/kube, libs/scoring and libs/disruption, ' +
        'and the Kubernetes object *types* (type-only, erased at build) — never an adapter, the service or module, ' +
        'libs/platform, TypeORM, pg, amqplib, the Kubernetes client, the AWS SDK, Nest, or a node built-in that does I/O.',
      severity: 'error',
      from: { path: '^services/([^/]+)/src/(domain|[^/]+/domain)/', pathNot: TESTS },
      to: {
        pathNot: [
          '^services/$1/src/(domain|[^/]+/domain)/',
          '^libs/(contracts|kube|scoring|disruption|steering)/src/',
          '^(node:)?crypto$',
        ],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'domain-types-only-from-kubernetes',
      comment:
        'Type-only imports into domain/ are allowed for the Kubernetes object shapes (V1Node, V1Pod) and nothing ' +
        'else outside the pure layers: a type from an adapter or a framework still ties the decision to it.',
      severity: 'error',
      from: { path: '^services/([^/]+)/src/(domain|[^/]+/domain)/', pathNot: TESTS },
      to: {
        dependencyTypes: ['type-only'],
        pathNot: ['^services/$1/src/(domain|[^/]+/domain)/', '^libs/(contracts|kube|scoring|disruption|steering)/src/', npm('@kubernetes/client-node')],
      },
    },
    {
      name: 'repositories-own-transactions',
      comment:
        'Only a service\'s repositories (adapters/outbound/, and the *.repository.ts of a behaviour\'s folder) and the ' +
        'module that builds them touch TypeORM: the ' +
        'repository owns each transaction, so a service, a loop or a command handler never opens one itself ' +
        '(docs/design.md#transactions).',
      severity: 'error',
      from: {
        path: '^services/[^/]+/src/',
        pathNot: [
          '^services/[^/]+/src/adapters/outbound/',
          '^services/[^/]+/src/[^/]+/[^/]+\\.repository\\.ts$',
          '\\.module\\.ts$',
          TESTS,
        ],
      },
      to: { path: npm('typeorm') },
    },
    {
      name: 'services-stand-apart',
      comment:
        'Services never import each other: they talk over RabbitMQ commands and events (libs/contracts) only. ' +
        'This covers their tests too.',
      severity: 'error',
      from: { path: '^services/([^/]+)/' },
      to: { path: '^services/', pathNot: '^services/$1/' },
    },
    {
      name: 'own-migrations-only',
      comment: 'A service runs its own migrations (migrations/<service>/) and no other service\'s: each owns its tables.',
      severity: 'error',
      from: { path: '^services/([^/]+)/' },
      to: { path: '^migrations/', pathNot: '^migrations/$1/' },
    },
    {
      name: 'libs-never-import-services',
      comment: 'Shared libraries never depend on a service (nor, outside their tests, on a service\'s migrations).',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^services/' },
    },
    {
      name: 'libs-never-import-migrations',
      comment:
        'Shared libraries never depend on a service\'s migrations; a lib\'s test may run them, to work on the real ' +
        'tables (the outbox relay\'s test on uncordon\'s schema).',
      severity: 'error',
      from: { path: '^libs/', pathNot: TESTS },
      to: { path: '^migrations/' },
    },
    {
      name: 'migrations-are-history',
      comment:
        'A migration runs the SQL it ran when it was applied, forever: it imports nothing but the other files of its ' +
        'own folder, so no change to library code can rewrite it (test/architecture/migration-history.spec.ts keeps ' +
        'the fingerprint of each one\'s SQL).',
      severity: 'error',
      from: { path: '^migrations/([^/]+)/' },
      to: { pathNot: '^migrations/$1/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'migrations-are-history-types',
      comment: 'The only types a migration takes from outside its folder are TypeORM\'s (MigrationInterface, QueryRunner).',
      severity: 'error',
      from: { path: '^migrations/([^/]+)/' },
      to: { dependencyTypes: ['type-only'], pathNot: ['^migrations/$1/', npm('typeorm')] },
    },
    {
      name: 'contracts-is-data-only',
      comment:
        'libs/contracts is data only — types, constants, JSON Schemas — so anything may import it: it imports ' +
        'nothing but itself (its specs may use Jest, Ajv and the YAML parser).',
      severity: 'error',
      from: { path: '^libs/contracts/', pathNot: TESTS },
      to: { pathNot: '^libs/contracts/' },
    },
    {
      name: 'scoring-is-pure',
      comment:
        'libs/scoring is pure functions: it imports itself, libs/contracts and the Kubernetes model (libs/kube) only — ' +
        'no package, no node built-in, no other lib (its specs may use Jest and fast-check).',
      severity: 'error',
      from: { path: '^libs/scoring/', pathNot: TESTS },
      to: { pathNot: '^libs/(scoring|contracts|kube)/' },
    },
    {
      name: 'kube-is-pure',
      comment:
        'libs/kube is the one pure model of Kubernetes objects, importable from every domain/: it imports itself and ' +
        'libs/contracts (data only: the one list of capacity types) — no client, no package, no node built-in (its test ' +
        'builders in src/testing/ may use the client\'s types).',
      severity: 'error',
      from: { path: '^libs/kube/', pathNot: TESTS },
      to: { pathNot: '^libs/(kube|contracts)/' },
    },
    {
      name: 'disruption-is-pure',
      comment:
        'libs/disruption (maintenance windows, approval modes and rules) is pure functions: it imports itself and ' +
        'libs/contracts only — time zones come from the runtime\'s Intl, never from a clock.',
      severity: 'error',
      from: { path: '^libs/disruption/', pathNot: TESTS },
      to: { pathNot: '^libs/(disruption|contracts)/' },
    },
    {
      name: 'steering-is-pure',
      comment:
        'libs/steering (the pool-health rule and the NodePool edit planner, docs/steering.md) is pure functions: it ' +
        'imports itself, libs/contracts and libs/kube only — time is an argument, never a clock.',
      severity: 'error',
      from: { path: '^libs/steering/', pathNot: TESTS },
      to: { pathNot: '^libs/(steering|contracts|kube)/' },
    },
    {
      name: 'no-io-in-pure-code',
      comment: 'No node built-in that does I/O or keeps time in domain/, libs/contracts, libs/kube, libs/scoring or libs/disruption.',
      severity: 'error',
      from: { path: '^(services/[^/]+/src/(domain|[^/]+/domain)/|libs/(contracts|kube|scoring|disruption|steering)/)', pathNot: TESTS },
      to: { path: IO_BUILTINS },
    },
    {
      name: 'production-code-not-on-tests',
      comment: 'Production code never imports test code (builders, fakes, harnesses, the simulators\' test helpers).',
      severity: 'error',
      from: { path: '^(services|libs)/[^/]+/src/', pathNot: TESTS },
      to: { path: '(\\.spec|\\.int|\\.e2e)\\.ts$|^(services|libs)/[^/]+/(test|src/testing)/|^test/' },
    },
    {
      name: 'no-circular',
      comment:
        'No import cycles at run time: a cycle means two files are one piece, or a dependency points the wrong way. ' +
        'A cycle closed only by a type-only import (erased at build) is allowed.',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-unresolvable',
      comment: 'Every import resolves (a typo in a relative path fails here, not at start-up).',
      severity: 'error',
      from: { pathNot: TESTS },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Resolve packages through their `exports` map, as Node does.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    exclude: { path: '^dist/' },
  },
};
