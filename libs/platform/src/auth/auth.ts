import {
  createParamDecorator,
  Injectable,
  SetMetadata,
  UnauthorizedException,
  ForbiddenException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { PassportStrategy, AuthGuard } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { createSecretKey } from 'node:crypto';
import jwt from 'jsonwebtoken';

/** The only accepted signing algorithm. `none`, HS384/HS512 and every asymmetric algorithm are refused. */
export const JWT_ALGORITHM = 'HS256' as const;
export const JWT_CLOCK_TOLERANCE_SECONDS = 30;

export interface AuthOptions {
  secret: string;
  writeScope: string;
  issuer?: string;
  audience?: string;
}
export const AUTH_OPTIONS = Symbol('AUTH_OPTIONS');

/** Principal — who is calling: the token's `sub` is the actor recorded with every action. */
export interface Principal {
  sub: string;
  scopes: string[];
}

/** scopesOf — scopes from a space-separated `scope` claim, or a `scopes` / `roles` array. */
export function scopesOf(claims: Record<string, unknown>): string[] {
  const out = new Set<string>();
  if (typeof claims['scope'] === 'string') for (const s of claims['scope'].split(/\s+/)) if (s) out.add(s);
  for (const key of ['scopes', 'roles']) {
    const v = claims[key];
    if (Array.isArray(v)) for (const s of v) if (typeof s === 'string') out.add(s);
  }
  return [...out];
}

export function createJwtStrategy(opts: AuthOptions) {
  @Injectable()
  class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
    constructor() {
      super({
        jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
        // A KeyObject, not the string: given a string, jsonwebtoken tries it as a public key first on every request
        // (createPublicKey, which throws) before making the secret key.
        secretOrKey: createSecretKey(Buffer.from(opts.secret)) as unknown as Buffer,
        algorithms: [JWT_ALGORITHM],
        ignoreExpiration: false,
        ...(opts.issuer ? { issuer: opts.issuer } : {}),
        ...(opts.audience ? { audience: opts.audience } : {}),
        jsonWebTokenOptions: { clockTolerance: JWT_CLOCK_TOLERANCE_SECONDS, algorithms: [JWT_ALGORITHM] },
      });
    }
    validate(claims: Record<string, unknown>): Principal {
      if (typeof claims['exp'] !== 'number') throw new UnauthorizedException('token has no exp claim');
      if (typeof claims['sub'] !== 'string' || claims['sub'].length === 0) throw new UnauthorizedException('token has no sub claim');
      return { sub: claims['sub'], scopes: scopesOf(claims) };
    }
  }
  return JwtStrategy;
}

const IS_PUBLIC = 'nodes-manager:public';
const NEEDS_WRITE = 'nodes-manager:write';
/** Public — a route that needs no token (`/healthz`, `/readyz`, `/metrics`, docs). */
export const Public = () => SetMetadata(IS_PUBLIC, true);
/** RequiresWrite — a mutating route: the token must carry the write scope. */
export const RequiresWrite = () => SetMetadata(NEEDS_WRITE, true);

/** JwtAuthGuard — global: every route needs a valid token unless marked {@link Public}. */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  constructor(private readonly reflector: Reflector) {
    super();
  }
  override canActivate(ctx: ExecutionContext) {
    if (ctx.getType() !== 'http') return true; // commands on the bus carry the actor the gateway authenticated
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [ctx.getHandler(), ctx.getClass()])) return true;
    return super.canActivate(ctx);
  }
  override handleRequest<T>(err: unknown, user: T, info: unknown): T {
    if (err || !user) {
      const reason = info instanceof Error ? info.message : err instanceof Error ? err.message : 'missing or invalid token';
      throw new UnauthorizedException(reason);
    }
    return user;
  }
}

export function createWriteScopeGuard(writeScope: string) {
  @Injectable()
  class WriteScopeGuard implements CanActivate {
    constructor(readonly reflector: Reflector) {}
    canActivate(ctx: ExecutionContext): boolean {
      if (ctx.getType() !== 'http') return true;
      if (!this.reflector.getAllAndOverride<boolean>(NEEDS_WRITE, [ctx.getHandler(), ctx.getClass()])) return true;
      const user = ctx.switchToHttp().getRequest<{ user?: Principal }>().user;
      if (!user?.scopes.includes(writeScope)) throw new ForbiddenException(`this action needs the ${writeScope} scope`);
      return true;
    }
  }
  return WriteScopeGuard;
}

/** Actor — the caller's `sub`, for recording who asked for an action. */
export const Actor = createParamDecorator((_: unknown, ctx: ExecutionContext): string => {
  const user = ctx.switchToHttp().getRequest<{ user?: Principal }>().user;
  return user?.sub ?? 'anonymous';
});

/** signToken — issues an HS256 token (demo, tests, operators' tooling). */
export function signToken(secret: string, claims: { sub: string; scope?: string; [k: string]: unknown }, expiresInSeconds = 3600): string {
  return jwt.sign(claims, secret, { algorithm: JWT_ALGORITHM, expiresIn: expiresInSeconds });
}
