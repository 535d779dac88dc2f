import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';

/** The built logger in a real process: pino writes asynchronously, and what is buffered is flushed at exit. */
const BUILT = 'dist/libs/platform/src/logging/logger.js';

describe('JsonLogger in a process that exits', () => {
  it('loses no line when the process exits right after logging (exit 78 after a refused start, for instance)', () => {
    if (!existsSync(BUILT)) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
    const script = [
      `import { JsonLogger } from './${BUILT}';`,
      "const l = new JsonLogger('svc');",
      "for (let i = 0; i < 5000; i++) l.info('line', { i });",
      'process.exit(78);',
    ].join('\n');
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    expect(out.status).toBe(78);
    const lines = out.stdout.trim().split('\n').map((l) => JSON.parse(l) as { i: number });
    expect(lines).toHaveLength(5000);
    expect(lines.map((l) => l.i)).toEqual([...Array(5000).keys()]);
  });
});
