// The project's linter (issue 35): typescript-eslint's recommended rules plus the type-aware ones that
// catch real bugs in an extension full of promises (a floating promise loses its error; a promise where a
// boolean or a void callback is expected runs unawaited). `npm run lint`; `npm test` runs it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      'out/**',
      '.test-runs/**',
      'test/fixtures/**',
      'test/vscode/driver/**',
      'test/vscode/python-kernel/**',
      'coverage/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['jest.config.ts'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Terminal text is cleaned and matched on purpose: escape sequences and control characters are the point.
      'no-control-regex': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly', console: 'readonly' } },
    // webpack's config and the test extensions are CommonJS, loaded by require.
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
