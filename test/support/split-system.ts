import { TEST_JWT_SECRET, TEST_RABBITMQ_URL } from '@nodes-manager/platform/testing';
import type { Ec2Sim, KubeSim } from '@nodes-manager/sim';

/**
 * splitSystemEnv — the environment of every service process of a split system, as the end-to-end and fault tests
 * start it: the database, the broker (the test broker unless given, e.g. through a fault proxy), the test JWT secret,
 * a 2 s scan interval, info logs (the harness reads the processes' log lines) and pools of 4 database connections
 * (two systems of up to twelve processes run beside the integration files, on a server of 100 connections); with
 * `kube`, its kubeconfig; with `ec2`, the EC2 simulator and dummy credentials — `extra` adds or overrides. Ports are
 * the harness's to set.
 */
export function splitSystemEnv(
  o: { databaseUrl: string; rabbitmqUrl?: string; kube?: Pick<KubeSim, 'kubeconfigPath'>; ec2?: Pick<Ec2Sim, 'url'> },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    DATABASE_URL: o.databaseUrl,
    RABBITMQ_URL: o.rabbitmqUrl ?? TEST_RABBITMQ_URL,
    AUTH_JWT_ACCESS_SECRET: TEST_JWT_SECRET,
    SCAN_INTERVAL_SECONDS: '2',
    DATABASE_POOL_SIZE: '4',
    LOG_LEVEL: 'info',
    ...(o.kube ? { KUBECONFIG: o.kube.kubeconfigPath } : {}),
    ...(o.ec2 ? { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'e2e-access-key', AWS_SECRET_ACCESS_KEY: 'e2e-secret-key', AWS_ENDPOINT_URL_EC2: o.ec2.url } : {}),
    ...extra,
  };
}
