import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { NODES_MANAGER_VERSION } from './cluster-heartbeat.js';

describe('NODES_MANAGER_VERSION', () => {
  it('is the root package.json version, so a heartbeat reports the version that was built', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(NODES_MANAGER_VERSION).toBe(pkg.version);
  });
});
