// Test files in the order that keeps every worker busy to the end: the longest kinds first — the fault suite, then
// the end-to-end files (each starts six to twelve service processes), then integration, then unit — and within a
// kind Jest's own order (last run's duration when its cache has it, else file size). On a fresh clone there is no
// cache, and by size alone a long end-to-end file could start last and leave the other workers idle.
const Sequencer = require('@jest/test-sequencer').default;

const KINDS = [
  [/\.fault\.ts$/, 4],
  [/\.e2e\.ts$/, 3],
  [/\.int\.ts$/, 2],
];
const kind = (test) => KINDS.find(([re]) => re.test(test.path))?.[1] ?? 1;

class LongestKindFirst extends Sequencer {
  sort(tests) {
    // Array.prototype.sort is stable: Jest's order holds within a kind.
    return [...super.sort(tests)].sort((a, b) => kind(b) - kind(a));
  }
}

module.exports = LongestKindFirst;
