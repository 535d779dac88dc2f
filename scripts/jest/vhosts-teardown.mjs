// Jest globalTeardown: removes the vhosts scripts/jest/vhosts-setup.mjs made (once, however many projects ran), and
// those an earlier run killed before its teardown left behind.
import { PREFIX_VARIABLE } from './rabbitmq-vhosts.mjs';

export default async function teardown() {
  const made = globalThis.__nmVhosts;
  if (!made?.tool) return;
  globalThis.__nmVhosts = { vhosts: [] };
  await made.tool.remove(made.vhosts);
  delete process.env[PREFIX_VARIABLE];
}
