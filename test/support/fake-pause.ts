import { Commands, type ActivePause, type PauseView } from '@nodes-manager/contracts';
import { CommandController, CommandHandler } from '@nodes-manager/platform';

/** The pause a {@link FakePauseOwner} answers (null: running); tests set it. */
export const fakePause = { current: null as ActivePause | null, at: '2026-01-01T00:00:00.000Z' };

/** aPauseView — `pause.get`'s answer as uncordon gives it (its reply schema in libs/contracts). */
export const aPauseView = (pause: ActivePause | null = null, readAt = '2026-01-01T00:00:00.000Z'): PauseView => ({ paused: pause !== null, pause, changes: [], readAt });

/**
 * FakePauseOwner — a stand-in for uncordon's `pause.get` in harnesses that run one service without uncordon: every
 * service's PauseGate asks it (docs/pause.md); it answers {@link fakePause}.
 */
@CommandController()
export class FakePauseOwner {
  @CommandHandler(Commands.pauseGet)
  get(): PauseView {
    return aPauseView(fakePause.current, fakePause.at);
  }
}
