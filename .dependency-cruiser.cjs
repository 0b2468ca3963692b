/**
 * Import rules for src/, checked in CI (`npm run lint:deps`). docs/architecture.md explains
 * each part and why it may import what it does; change both together.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-file-cycle',
      severity: 'error',
      comment: 'No file-level import cycle, type-only imports included: a cycle means two files are one module in disguise.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      severity: 'error',
      comment: 'No cycle between the folders of src/: each part depends on parts below it, never back.',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment:
        'src/domain/ holds the rules and performs no I/O: it imports only itself, and node:crypto for hashing (a pure function: delivery keys are SHA-256 of their identity).',
      from: { path: '^src/domain/' },
      to: { pathNot: ['^src/domain/', '^crypto$'] },
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
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
  },
};
