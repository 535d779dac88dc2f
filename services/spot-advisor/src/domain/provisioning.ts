/** LaunchSettings — the PROVISION_* variables as config.ts parses them. */
export interface LaunchSettings {
  readonly PROVISION_LAUNCH_TEMPLATE_ID?: string | undefined;
  readonly PROVISION_LAUNCH_TEMPLATE_NAME?: string | undefined;
  readonly PROVISION_LAUNCH_TEMPLATE_VERSION?: string | undefined;
  readonly PROVISION_IMAGE_ID?: string | undefined;
  readonly PROVISION_SUBNET_ID?: string | undefined;
  readonly PROVISION_SECURITY_GROUP_IDS?: readonly string[] | undefined;
}

export type ResolvedLaunch =
  | { readonly launchTemplate: { readonly id?: string; readonly name?: string; readonly version?: string } }
  | { readonly imageId: string; readonly subnetId?: string; readonly securityGroupIds?: readonly string[] };

export type LaunchResolution =
  | { readonly ok: true; readonly launch: ResolvedLaunch; readonly source: 'launch-template' | 'image' }
  | { readonly ok: false; readonly message: string; readonly variables: readonly string[] };

/**
 * resolveLaunch — what RunInstances launches from: the launch template when PROVISION_LAUNCH_TEMPLATE_ID or _NAME
 * is set (exactly one of them: EC2 refuses both), else PROVISION_IMAGE_ID with the optional subnet and security
 * groups. Neither → not ok, naming the variables to set.
 */
export function resolveLaunch(s: LaunchSettings): LaunchResolution {
  const id = s.PROVISION_LAUNCH_TEMPLATE_ID;
  const name = s.PROVISION_LAUNCH_TEMPLATE_NAME;
  if (id && name) {
    return {
      ok: false,
      message: 'set either PROVISION_LAUNCH_TEMPLATE_ID or PROVISION_LAUNCH_TEMPLATE_NAME, not both',
      variables: ['PROVISION_LAUNCH_TEMPLATE_ID', 'PROVISION_LAUNCH_TEMPLATE_NAME'],
    };
  }
  if (id || name) {
    const version = s.PROVISION_LAUNCH_TEMPLATE_VERSION;
    return {
      ok: true,
      source: 'launch-template',
      launch: { launchTemplate: { ...(id ? { id } : {}), ...(name ? { name } : {}), ...(version ? { version } : {}) } },
    };
  }
  if (s.PROVISION_IMAGE_ID) {
    const groups = s.PROVISION_SECURITY_GROUP_IDS ?? [];
    return {
      ok: true,
      source: 'image',
      launch: {
        imageId: s.PROVISION_IMAGE_ID,
        ...(s.PROVISION_SUBNET_ID ? { subnetId: s.PROVISION_SUBNET_ID } : {}),
        ...(groups.length ? { securityGroupIds: [...groups] } : {}),
      },
    };
  }
  return {
    ok: false,
    message:
      'no launch configuration: set PROVISION_LAUNCH_TEMPLATE_ID or PROVISION_LAUNCH_TEMPLATE_NAME, ' +
      'or PROVISION_IMAGE_ID (with PROVISION_SUBNET_ID and PROVISION_SECURITY_GROUP_IDS)',
    variables: ['PROVISION_LAUNCH_TEMPLATE_ID', 'PROVISION_LAUNCH_TEMPLATE_NAME', 'PROVISION_IMAGE_ID', 'PROVISION_SUBNET_ID', 'PROVISION_SECURITY_GROUP_IDS'],
  };
}

/** ProvisionRequest — `instance.provision`'s body as the gateway validated it. */
export interface ProvisionRequest {
  readonly instanceType: string;
  readonly count: number;
  readonly clientToken: string;
  readonly dryRun: boolean;
  readonly zone?: string;
  readonly tags?: Readonly<Record<string, string>>;
}

/** ProvisionArguments — the part of a request a client token stands for (what EC2 fingerprints). */
export interface ProvisionArguments {
  readonly instanceType: string;
  readonly count: number;
  readonly zone: string | null;
  readonly tags: Readonly<Record<string, string>>;
}

/** provisionArguments — the request without token and dry-run flag, tags in key order: equal arguments, equal JSON. */
export function provisionArguments(r: ProvisionRequest): ProvisionArguments {
  const tags = Object.fromEntries(Object.entries(r.tags ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { instanceType: r.instanceType, count: r.count, zone: r.zone ?? null, tags };
}

/**
 * sameArguments — whether a retry with a client token asks for what the token was first used for. A different
 * request under a used token is a conflict (EC2's IdempotentParameterMismatch), never a second launch.
 */
export function sameArguments(a: ProvisionArguments, b: ProvisionArguments): boolean {
  return canonical(a) === canonical(b);
}

function canonical(a: ProvisionArguments): string {
  const tags = Object.entries(a.tags).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  return JSON.stringify([a.instanceType, a.count, a.zone, tags]);
}
