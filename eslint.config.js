// ESLint for src/, test/ and bench/: typescript-eslint's type-checked rules, the ones that catch
// real bugs in async code first (a floating promise is a write nobody waits for, or an error
// nobody sees). Style is prettier's job (npm run format:check), not this file's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'herald-data/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // Off on purpose: the Store contract and adapters are async for every driver, and the
      // SQLite driver's methods are synchronous inside; an `async` without `await` is how they
      // keep the contract (a thrown error becomes a rejection), not a bug.
      '@typescript-eslint/require-await': 'off',
      // A leading underscore says "deliberately unused" (a destructured field left out, a callback's unused argument).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Time comes from the injected clock (src/clock.ts), so tests can hold it still or move it.
    // Left out, each for its reason: the clock itself; provider adapters and the SMTP/HTTP
    // transports, whose deadlines are wall-clock epoch ms by contract (providers/provider.ts
    // `sendBy`) because sockets time out in real time; the sandbox and the phone simulator, fakes
    // with a `now` option of their own; the store drivers (a migration's applied_at); and two CLI
    // commands that print real elapsed time.
    files: ['src/**/*.ts'],
    ignores: [
      'src/clock.ts',
      'src/providers/**',
      'src/sandbox/**',
      'src/store/**',
      'src/devices/phone-sim.ts',
      'src/cli/commands/send-test.ts',
      'src/cli/commands/phone-sim.ts',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']", message: 'Read time from the injected Clock (src/clock.ts), not Date.now().' },
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'Read time from the injected Clock (src/clock.ts), not new Date().' },
      ],
    },
  },
  {
    // Tests and benchmarks read JSON answers (`await res.json()` is `any`) and assert on them;
    // typing every answer would add noise without catching anything the assertions do not.
    files: ['test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // Fakes and harnesses hand out closures as object properties (`script: fake.script`); none uses `this`.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
