import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { PauseRequest, PauseView } from '@nodes-manager/contracts';
import { CLOCK, LOGGER, PAUSE_GATE, validationFailed, type Clock, type JsonLogger, type PauseGate } from '@nodes-manager/platform';
import type { UncordonConfig } from '../config.js';
import { PAUSE_REPOSITORY, UNCORDON_CONFIG } from '../tokens.js';
import { decideConfigured, decideExpiry, decidePause, decideResume, validatePauseRequest } from './domain/decide-pause.js';
import type { PauseRepository } from './pause.repository.js';

/** The configured pause's reason when DISRUPTION_PAUSE_REASON is not set. */
export const DEFAULT_CONFIG_PAUSE_REASON = 'paused by configuration';

/**
 * PauseService — uncordon keeps the fleet-wide pause of disruptive actions (docs/pause.md): answers `pause.get`,
 * records pauses and resumes (each with its event), applies DISRUPTION_PAUSE when it changed, and records the end of
 * a pause whose `until` passed. After each change its own gate reads the table again, so uncordon's actions see it
 * at once; the other services within one scan interval.
 */
@Injectable()
export class PauseService implements OnApplicationBootstrap {
  constructor(
    @Inject(PAUSE_REPOSITORY) private readonly repo: PauseRepository,
    @Inject(PAUSE_GATE) private readonly gate: PauseGate,
    @Inject(UNCORDON_CONFIG) private readonly config: UncordonConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: JsonLogger,
  ) {}

  /** At start: DISRUPTION_PAUSE applied if it changed since it was last applied, then the gate reads the result. */
  async onApplicationBootstrap(): Promise<void> {
    const reason = this.config.DISRUPTION_PAUSE_REASON ?? DEFAULT_CONFIG_PAUSE_REASON;
    const { changed } = await this.repo.change(this.clock.now(), (_latest, lastConfigured) => decideConfigured(lastConfigured, this.config.DISRUPTION_PAUSE, reason));
    if (changed) this.logger.info(this.config.DISRUPTION_PAUSE ? 'disruptive actions paused by configuration' : 'pause by configuration lifted', { reason });
    await this.gate.refresh();
  }

  view(): Promise<PauseView> {
    return this.repo.view(this.clock.now());
  }

  /** set — pauses as `actor` (a pause in force is replaced); a bad request is refused naming the field. */
  async set(req: PauseRequest, actor: string): Promise<PauseView> {
    const problems = validatePauseRequest(req, this.clock.now());
    if (problems.length > 0) throw validationFailed(problems.map((p) => ({ in: 'body', field: p.field, message: p.message })));
    const { view } = await this.repo.change(this.clock.now(), () => decidePause(req, actor));
    this.logger.warn('disruptive actions paused', { actor, reason: req.reason, until: req.until ?? null, scope: req.scope ?? 'disruptive' });
    await this.gate.refresh();
    return view;
  }

  /** clear — resumes as `actor`; nothing paused, nothing recorded (safe to retry). */
  async clear(actor: string): Promise<PauseView> {
    const { view, changed } = await this.repo.change(this.clock.now(), (latest) => decideResume(latest, actor, this.clock.now()));
    if (changed) this.logger.info('disruptive actions resumed', { actor });
    await this.gate.refresh();
    return view;
  }

  /** expire — records the end of a pause whose `until` passed; answers when to look again (its `until`, if any). */
  async expire(): Promise<{ requeueAfterMs?: number }> {
    const now = this.clock.now();
    const { view, changed } = await this.repo.change(now, (latest) => decideExpiry(latest, now));
    if (changed) {
      this.logger.info('pause expired: disruptive actions allowed again');
      await this.gate.refresh();
    }
    const until = view.pause?.until ? Date.parse(view.pause.until) - now.getTime() : undefined;
    return until !== undefined ? { requeueAfterMs: Math.max(0, until) } : {};
  }
}
