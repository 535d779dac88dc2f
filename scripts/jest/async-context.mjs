// After each test file, the AsyncLocalStorage instances it ran are disabled. Node (20) keeps every instance that has
// ever run in one list and walks it at each new promise and async resource, setting the instance's store on it; Jest
// loads the project's modules, and Nest's, afresh for every test file, each with instances of its own that stay in
// that list after the file. By the last files of a worker every promise was walking hundreds of them: the suite's
// profile had 13 % of its CPU in async_hooks alone, and more in collecting what they left on each promise. A
// disabled instance leaves the list; it is enabled again by its next run(), so an instance Jest keeps between files
// loses nothing.
import { afterAll } from '@jest/globals';
import { AsyncLocalStorage } from 'node:async_hooks';

const ENABLED = Symbol.for('nodes-manager.jest.async-local-storages-run');
const proto = AsyncLocalStorage.prototype;
// node:async_hooks is Node's own module, the same in every test file of a worker: patched once, by the first file.
if (!proto[ENABLED]) {
  const enabled = new Set();
  Object.defineProperty(proto, ENABLED, { value: enabled });
  for (const method of ['run', 'enterWith']) {
    const original = proto[method];
    proto[method] = function (...args) {
      enabled.add(this);
      return original.apply(this, args);
    };
  }
}

afterAll(() => {
  const enabled = proto[ENABLED];
  for (const storage of enabled) storage.disable();
  enabled.clear();
});
