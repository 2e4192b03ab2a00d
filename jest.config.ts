import type { Config } from 'jest';

// Tiers: `unit` (pure code), `integration` (real sockets, the SDK's real Client), `harden` (below) and
// `real` (the real claude CLI and real VS Code via code-server; needs test/setup/install-real-clients.sh).
const tsJest: Config['transform'] = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: { warnOnly: false } }] };

const config: Config = {
  projects: [
    { displayName: 'unit', testEnvironment: 'node', transform: tsJest, testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { displayName: 'integration', testEnvironment: 'node', transform: tsJest, testMatch: ['<rootDir>/test/integration/**/*.test.ts'] },
    { displayName: 'real', testEnvironment: 'node', transform: tsJest, testMatch: ['<rootDir>/test/real/**/*.test.ts'] },
    // `npm run harden` (HARDEN_FAST=1: the subset the normal test command runs): attacks on the real server.
    { displayName: 'harden', testEnvironment: 'node', transform: tsJest, testMatch: ['<rootDir>/test/harden/**/*.test.ts'] },
  ],
};

export default config;
