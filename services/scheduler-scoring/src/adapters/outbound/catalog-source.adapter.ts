import { Commands, type CommandMeta } from '@nodes-manager/contracts';
import type { CommandBus, JsonLogger } from '@nodes-manager/platform';
import type { InstanceTypeFacts } from '../../domain/instance-catalog.js';

/** CatalogFetch — spot-advisor's EC2 instance types, or why there are none. */
export type CatalogFetch =
  | { readonly ok: true; readonly region?: string; readonly types: readonly InstanceTypeFacts[] }
  | { readonly ok: false; readonly detail: string };

/** CatalogSource — the EC2 instance types new nodes may be (port); mapped by `toCatalog` in domain/. */
export interface CatalogSource {
  instanceTypes(meta: CommandMeta): Promise<CatalogFetch>;
}

interface InstanceTypesReply {
  region?: string;
  items?: InstanceTypeFacts[];
}

/**
 * BusCatalogSource — spot-advisor's `instancetypes.list` (EC2 DescribeInstanceTypes, all pages, cached there per
 * region) over the command bus. No answer (absent, timing out, erroring) or an empty one is `ok: false` with
 * the reason; the caller then uses the bundled catalog and says so.
 */
export class BusCatalogSource implements CatalogSource {
  constructor(
    private readonly bus: CommandBus,
    private readonly logger: JsonLogger,
    private readonly timeoutMs = 5000,
  ) {}

  async instanceTypes(meta: CommandMeta): Promise<CatalogFetch> {
    try {
      const reply = await this.bus.send(Commands.instanceTypesList, {}, meta, { timeoutMs: this.timeoutMs });
      const types = reply?.items ?? [];
      if (types.length === 0) return { ok: false, detail: 'EMPTY: spot-advisor listed no instance types' };
      return { ok: true, ...(reply.region ? { region: reply.region } : {}), types };
    } catch (err) {
      const detail = `${(err as { code?: string }).code ?? 'ERROR'}: ${(err as Error).message}`;
      this.logger.debug('spot-advisor instance types unavailable, using the bundled catalog', { reason: detail });
      return { ok: false, detail };
    }
  }
}
