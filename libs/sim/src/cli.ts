/**
 * The simulators as a process: a Kubernetes API server seeded with a generated fleet, and the EC2 simulator.
 *   node dist/libs/sim/src/cli.js [--port 6443] [--nodes 200] [--seed 1] [--karpenter] [--karpenter-controller] [--ec2-port 0]
 * `--karpenter` installs Karpenter's CRDs with the fleet's NodePools and NodeClaims; `--karpenter-controller` also runs
 * the simulator's Karpenter (drift, budgets, interruption handling; docs/karpenter-simulator.md).
 * Prints the URLs and a kubeconfig path: `KUBECONFIG=<path> kubectl get nodes`.
 */
import { parseArgs } from 'node:util';
import { startEc2Sim } from './ec2/index.js';
import { generateFleet } from './fleet/generate-fleet.js';
import { startSimKarpenter } from './karpenter/sim-karpenter.js';
import { startKubeSim } from './kube/kube-sim.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    nodes: { type: 'string', default: '200' },
    seed: { type: 'string', default: '1' },
    karpenter: { type: 'boolean', default: false },
    'karpenter-controller': { type: 'boolean', default: false },
    'pods-per-node': { type: 'string', default: '30' },
    'ec2-port': { type: 'string', default: '0' },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  console.log('usage: cli.js [--port N] [--host H] [--nodes N] [--seed N] [--karpenter] [--karpenter-controller] [--pods-per-node N] [--ec2-port N]');
  process.exit(0);
}

const karpenter = values.karpenter || values['karpenter-controller'];
/** The simulators' one clock: the wall clock, read by the fleet and by both simulators alike. */
const clock = (): Date => new Date();
const fleetOpts = {
  seed: Number(values.seed),
  nodes: Number(values.nodes),
  podsPerNode: Number(values['pods-per-node']),
  karpenter,
  // Creation times relative to the moment the process starts, so ages in kubectl look alive.
  now: clock(),
};
const kube = await startKubeSim({
  port: Number(values.port),
  host: values.host,
  karpenter,
  clock,
  fleetFactory: (o) => generateFleet({ ...fleetOpts, ...o } as typeof fleetOpts),
});
const fleet = generateFleet(fleetOpts);
kube.load(fleet);
const ec2 = await startEc2Sim({ port: Number(values['ec2-port']), host: values.host, seed: Number(values.seed), clock });
// The controller needs the fleet's instances in EC2, so interruptions sent to the EC2 simulator reach their NodeClaims.
const controller = values['karpenter-controller'] ? (ec2.adoptNodes(fleet.nodes), startSimKarpenter({ api: kube.api, ec2, clock })) : undefined;

console.log(`Kubernetes API simulator: ${kube.url} (${fleet.nodes.length} nodes, ${fleet.pods.length} pods, karpenter ${controller ? 'on, with its controller' : karpenter ? 'CRDs only' : 'off'})`);
console.log(`kubeconfig:               ${kube.kubeconfigPath}`);
console.log(`EC2 simulator:            ${ec2.url}`);
console.log('');
console.log(`  KUBECONFIG=${kube.kubeconfigPath} kubectl get nodes`);
console.log(`  AWS_ENDPOINT_URL_EC2=${ec2.url} AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x <service>`);
console.log(`  curl -XPOST ${kube.url}/_sim/scenario/cordonAsNth -d '{"node":"${fleet.nodes[0]?.metadata?.name ?? ''}","taint":true}'`);

const shutdown = async (): Promise<void> => {
  controller?.stop();
  await Promise.allSettled([kube.stop(), ec2.stop()]);
  process.exit(0);
};
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
