// Every command is typed: its request and reply have a JSON Schema in libs/contracts (COMMAND_SCHEMAS), every handler
// is declared with @CommandHandler (which has the interceptor check both against them), every send goes through the
// CommandBus (typed by pattern, checked before it travels and when the reply arrives), and no caller asserts a reply
// type by hand. A handler declared with Nest's own @MessagePattern, a command sent around the bus, or a reply type
// asserted with `send<T>` is an untyped command: it fails here (docs/commands.md, docs/architecture.md#commands).
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { checkRequest, UntypedCommandError } from '@nodes-manager/platform';

/** The rules, each with the files allowed to break it and why. */
const RULES: { name: string; pattern: RegExp; allowed: Record<string, string> }[] = [
  {
    name: 'a handler declared without @CommandHandler (its request and reply unchecked)',
    pattern: /@(MessagePattern|EventPattern)\s*[(<]/,
    allowed: {},
  },
  {
    name: 'a reply type asserted by the caller (send<T>): the pattern types the reply',
    pattern: /\.(send|approval)<(?!['"`])/,
    allowed: {},
  },
  {
    name: 'a command sent around the CommandBus (sendToQueue to a service queue)',
    pattern: /sendToQueue\(\s*serviceQueue\(/,
    allowed: { 'libs/platform/src/messaging/rmq-command-bus.ts': 'the bus itself' },
  },
];

/** untypedCommands — where the sources break the rules: `<file>:<line> <rule>`. */
function untypedCommands(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [file, text] of files) {
    text.split('\n').forEach((line, i) => {
      for (const rule of RULES) if (rule.pattern.test(line) && !(file in rule.allowed)) out.push(`${file}:${i + 1} ${rule.name}`);
    });
  }
  return out;
}

const sources = new Map(
  execFileSync('git', ['ls-files', '-co', '--exclude-standard', '*.ts'], { encoding: 'utf8' })
    .split('\n')
    .filter((f) => f && existsSync(f) && !f.startsWith('test/architecture/'))
    .map((f) => [f, readFileSync(f, 'utf8')]),
);

describe('commands are typed', () => {
  it('in this repository: every handler declared with @CommandHandler, every send through the bus, no reply type asserted', () => {
    expect(untypedCommands(sources)).toEqual([]);
  });

  it('the allow-lists name files that exist', () => {
    for (const rule of RULES) for (const f of Object.keys(rule.allowed)) expect([f, existsSync(f)]).toEqual([f, true]);
  });

  it.each([
    ['a handler of Nest', "  @MessagePattern('nodes.purge')\n  purge() {}", RULES[0]!.name],
    ['an event handler of Nest', "  @EventPattern<string>('node.added')\n  added() {}", RULES[0]!.name],
    ['a reply type asserted', "    const r = await this.bus.send<{ items: string[] }>('node-sync', Commands.nodesList, q, meta);", RULES[1]!.name],
    ['a command sent on a raw channel', "    ch.sendToQueue(serviceQueue('uncordon'), Buffer.from(body));", RULES[2]!.name],
  ])('fails on a planted untyped command: %s', (_what, line, rule) => {
    const planted = new Map([...sources, ['services/uncordon/src/adapters/inbound/planted.commands.ts', `export class Planted {\n${line}\n}\n`]]);
    expect(untypedCommands(planted)).toEqual([`services/uncordon/src/adapters/inbound/planted.commands.ts:2 ${rule}`]);
  });

  it('refuses, before it travels, a pattern that has no schema in the catalogue', () => {
    expect(() => checkRequest('nodes.purge', {})).toThrow(UntypedCommandError);
    expect(() => checkRequest('nodes.purge', {})).toThrow(/nodes\.purge has no schema in libs\/contracts/);
  });
});
