// Jest setup file (before each test file's modules load): TEST_RABBITMQ_URL names this worker's own vhost, made by
// scripts/jest/vhosts-setup.mjs; without one (none could be made) it is left as it is.
import { DEFAULT_RABBITMQ_URL, PREFIX_VARIABLE, withVhost, workerVhost } from './rabbitmq-vhosts.mjs';

const prefix = process.env[PREFIX_VARIABLE];
if (prefix) {
  process.env['TEST_RABBITMQ_URL'] = withVhost(process.env['TEST_RABBITMQ_URL'] ?? DEFAULT_RABBITMQ_URL, workerVhost(prefix, process.env['JEST_WORKER_ID'] ?? '1'));
}
