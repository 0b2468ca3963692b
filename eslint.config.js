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
