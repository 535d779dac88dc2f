// Jest setup file (after the framework is installed): each suite's timeout per test, by the test file's kind. A
// project's own `testTimeout` is not read by Jest 30's runner (only the command line's is), so it is set here.
import { expect, jest } from '@jest/globals';

const TIMEOUTS = [
  [/\.int\.ts$/, 90_000],
  [/\.e2e\.ts$/, 180_000],
  [/\.fault\.ts$/, 300_000],
];

const path = expect.getState().testPath ?? '';
const ms = TIMEOUTS.find(([re]) => re.test(path))?.[1];
if (ms) jest.setTimeout(ms);
