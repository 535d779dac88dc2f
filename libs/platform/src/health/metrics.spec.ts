import { describe, expect, it } from '@jest/globals';
import { lintExposition, promtoolProblems } from '../testing/metrics-lint.js';
import { Metrics } from './metrics.js';

describe('Metrics exposition', () => {
  it('passes the promtool-equivalent lint, and promtool itself where it is installed', async () => {
    const m = new Metrics();
    m.counter('nodes_manager_uncordons_total', 'Auto-uncordon attempts by result', ['result']).inc({ service: 'uncordon', result: 'uncordoned' });
    m.histogram('nodes_manager_command_duration_seconds', 'Command handling time', ['handler', 'outcome']).observe({ service: 'node-sync', handler: 'list', outcome: 'ok' }, 0.01);
    const text = await m.registry.metrics();
    expect(text).toContain('nodes_manager_process_cpu_seconds_total');
    expect(lintExposition(text)).toEqual([]);
    expect(promtoolProblems(text) ?? []).toEqual([]);
  });

  it.each([
    ['a doubled prefix', '# HELP nodes_manager_process_process_cpu_seconds_total x\n# TYPE nodes_manager_process_process_cpu_seconds_total counter\nnodes_manager_process_process_cpu_seconds_total 1\n', 'repeated segment'],
    ['a gauge named like a counter', '# HELP nodes_manager_handles_total x\n# TYPE nodes_manager_handles_total gauge\nnodes_manager_handles_total 1\n', 'should not have "_total"'],
    ['a counter without _total', '# HELP nodes_manager_drains x\n# TYPE nodes_manager_drains counter\nnodes_manager_drains 1\n', 'should have "_total"'],
    ['a class name as the service label', '# HELP nodes_manager_x_seconds x\n# TYPE nodes_manager_x_seconds gauge\nnodes_manager_x_seconds{service="NodeSyncCommands"} 1\n', 'not a service name'],
    ['milliseconds', '# HELP nodes_manager_x_milliseconds x\n# TYPE nodes_manager_x_milliseconds gauge\nnodes_manager_x_milliseconds 1\n', 'base units'],
    ['no HELP', '# TYPE nodes_manager_x gauge\nnodes_manager_x 1\n', 'no HELP'],
  ])('the lint refuses %s', (_, text, problem) => {
    expect(lintExposition(text).join('\n')).toContain(problem);
  });
});
