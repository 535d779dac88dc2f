// Jest globalSetup of the projects that use RabbitMQ: one vhost per worker (scripts/jest/rabbitmq-vhosts.mjs), made
// once per run however many of those projects run; scripts/jest/worker-vhost.mjs points each test file at its
// worker's. Removed by scripts/jest/vhosts-teardown.mjs.
import { createWorkerVhosts, isolation, PREFIX_VARIABLE } from './rabbitmq-vhosts.mjs';

export default async function setup(globalConfig) {
  if (process.env[PREFIX_VARIABLE] || globalThis.__nmVhosts) return;
  globalThis.__nmVhosts = { vhosts: [] };
  const tool = await isolation();
  const made = tool && (await createWorkerVhosts(tool, Math.max(1, globalConfig.maxWorkers)).catch((err) => {
    process.stderr.write(`\nRabbitMQ vhosts not made through ${tool.how}: ${err.message}\n`);
    return null;
  }));
  if (!made) {
    process.stderr.write('\nRabbitMQ: no vhost per worker (neither the management API nor rabbitmqctl could make them): test files running at the same time share one vhost.\n');
    return;
  }
  const { prefix, vhosts, stale } = made;
  process.stderr.write(`\nRabbitMQ: a vhost per worker (${vhosts.join(', ')}), made through ${tool.how}\n`);
  process.env[PREFIX_VARIABLE] = prefix;
  globalThis.__nmVhosts = { tool, vhosts: [...vhosts, ...stale] };
}
