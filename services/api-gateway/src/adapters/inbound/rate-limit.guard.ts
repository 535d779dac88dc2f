import { applyDecorators, Injectable, SetMetadata, type ExecutionContext } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail, type ThrottlerModuleOptions } from '@nestjs/throttler';
import type { Principal } from '@nodes-manager/platform';
import { CodedError } from '@nodes-manager/platform';

/**
 * Per-actor rate limits (docs/api.md, "Rate limits"), counted by @nestjs/throttler in this gateway process:
 * - `write` — every route that needs the write scope, RATE_LIMIT_WRITES per RATE_LIMIT_WINDOW_SECONDS;
 * - `expensive` — the routes marked {@link Expensive} (drain, instances, simulate, optimize/trigger),
 *   RATE_LIMIT_EXPENSIVE per window.
 * The actor is the token's `sub` (the guard runs after authentication), so one caller cannot spend another's budget.
 */
export const RATE_LIMITS = ['write', 'expensive'] as const;
export type RateLimitName = (typeof RATE_LIMITS)[number];

const EXPENSIVE = 'nodes-manager:expensive';
const NEEDS_WRITE = 'nodes-manager:write';

/** Expensive — a route that costs the cluster or AWS real work: limited per actor by the `expensive` budget. */
export const Expensive = () => applyDecorators(SetMetadata(EXPENSIVE, true));

export function rateLimitOptions(config: { RATE_LIMIT_WINDOW_SECONDS: number; RATE_LIMIT_WRITES: number; RATE_LIMIT_EXPENSIVE: number }): ThrottlerModuleOptions {
  const ttl = config.RATE_LIMIT_WINDOW_SECONDS * 1000;
  return {
    setHeaders: false,
    throttlers: [
      { name: 'write', ttl, limit: config.RATE_LIMIT_WRITES },
      { name: 'expensive', ttl, limit: config.RATE_LIMIT_EXPENSIVE },
    ],
  };
}

/** RateLimitGuard — applies each budget only to its routes, tracks by actor, and answers 429 RATE_LIMITED with Retry-After. */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  override async onModuleInit(): Promise<void> {
    await super.onModuleInit();
    const applies = (name: RateLimitName, ctx: ExecutionContext) =>
      Boolean(this.reflector.getAllAndOverride<boolean>(name === 'write' ? NEEDS_WRITE : EXPENSIVE, [ctx.getHandler(), ctx.getClass()]));
    this.throttlers = this.throttlers.map((t) => ({ ...t, skipIf: (ctx: ExecutionContext) => !applies(t.name as RateLimitName, ctx) }));
  }

  protected override async shouldSkip(ctx: ExecutionContext): Promise<boolean> {
    return ctx.getType() !== 'http'; // commands on the in-process bus are not HTTP requests
  }

  protected override async getTracker(req: Record<string, unknown>): Promise<string> {
    const user = req['user'] as Principal | undefined;
    return user?.sub ? `actor:${user.sub}` : `ip:${String(req['ip'])}`;
  }

  protected override async throwThrottlingException(ctx: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const retryAfterSeconds = Math.max(1, Math.ceil(detail.timeToBlockExpire));
    ctx.switchToHttp().getResponse<{ setHeader(n: string, v: string): void }>().setHeader('Retry-After', String(retryAfterSeconds));
    throw new CodedError('RATE_LIMITED', `rate limit reached: at most ${detail.limit} such requests per ${Math.round(detail.ttl / 1000)} s; retry in ${retryAfterSeconds} s`, {
      limit: detail.limit,
      windowSeconds: Math.round(detail.ttl / 1000),
      retryAfterSeconds,
    });
  }
}
