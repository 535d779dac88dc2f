import { TEST_JWT_SECRET } from '@nodes-manager/platform/testing';
import type { Ec2Sim, KubeSim } from '@nodes-manager/sim';

/**
 * simulatedAllInOneEnv — the environment of an all-in-one system on the simulators, as the integration tests start
 * it: the test database, the test JWT secret, the Kubernetes simulator's kubeconfig, the EC2 simulator with dummy
 * credentials, `OPTIMIZE_MODE=plan`, quiet logs, a random port and loops that wait an hour (a test drives its cycles)
 * — `extra` adds or overrides. It also sets this process's `AWS_ENDPOINT_URL_EC2`: the SDK reads it when spot-advisor
 * builds its client, which can happen during start.
 */
export function simulatedAllInOneEnv(o: { databaseUrl: string; kube: KubeSim; ec2: Ec2Sim }, extra: Record<string, string> = {}): Record<string, string> {
  process.env['AWS_ENDPOINT_URL_EC2'] = o.ec2.url;
  return {
    DATABASE_URL: o.databaseUrl,
    AUTH_JWT_ACCESS_SECRET: TEST_JWT_SECRET,
    SCAN_INTERVAL_SECONDS: '3600',
    LOG_LEVEL: 'error',
    APP_PORT: '0',
    KUBECONFIG: o.kube.kubeconfigPath,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'x',
    AWS_SECRET_ACCESS_KEY: 'y',
    AWS_ENDPOINT_URL_EC2: o.ec2.url,
    OPTIMIZE_MODE: 'plan',
    ...extra,
  };
}
