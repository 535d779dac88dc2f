import { describe, expect, it } from '@jest/globals';
import { CONTROLLER_OWNER, controllerOwners, type ControllerName, type ServiceName } from '@nodes-manager/contracts';
import { FakeClock } from '../clock/fake-clock.js';
import { Metrics } from '../health/metrics.js';
import { JsonLogger } from '../logging/logger.js';
import { Controllers } from './controllers.js';

const controllersOf = (service: ServiceName) => new Controllers(service, new FakeClock(), new Metrics(), new JsonLogger(service, 'error', () => undefined));
const make = (service: ServiceName, name: string) => () => controllersOf(service).controller({ name: name as ControllerName, reconcile: async () => undefined });

describe('Controllers', () => {
  it.each(Object.keys(CONTROLLER_OWNER).flatMap((name) => controllerOwners(name).map((service) => [name, service] as const)))("makes the catalogue's controller %s for %s", (name, service) => {
    expect(make(service, name)().name).toBe(name);
  });

  it.each([
    ['a name the catalogue lacks', 'uncordon', 'sweeper', /controller 'sweeper' is not one of uncordon's in CONTROLLER_OWNER/],
    ["another service's controller", 'uncordon', 'steering', /controller 'steering' is not one of uncordon's .*: it is karpenter-gateway's/],
  ] as const)('refuses %s', (_what, service, name, error) => {
    expect(make(service, name)).toThrow(error);
  });
});
