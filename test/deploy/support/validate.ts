import * as core from 'kubernetes-models/v1';
import * as apps from 'kubernetes-models/apps/v1';
import * as rbac from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import * as policy from 'kubernetes-models/policy/v1';
import * as autoscaling from 'kubernetes-models/autoscaling/v2';
import * as networking from 'kubernetes-models/networking.k8s.io/v1';
import * as scheduling from 'kubernetes-models/scheduling.k8s.io/v1';
import * as monitoring from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';

/** The schema modules by apiVersion (no network: the OpenAPI schemas ship inside the packages). */
const MODELS: Record<string, Record<string, unknown>> = {
  v1: core,
  'apps/v1': apps,
  'rbac.authorization.k8s.io/v1': rbac,
  'policy/v1': policy,
  'autoscaling/v2': autoscaling,
  'networking.k8s.io/v1': networking,
  'scheduling.k8s.io/v1': scheduling,
  'monitoring.coreos.com/v1': monitoring,
};

/** validate — throws when `doc` does not satisfy the Kubernetes schema of its apiVersion and kind (kubernetes-models). */
export function validate(doc: any): void {
  const Model = MODELS[doc.apiVersion]?.[doc.kind] as (new (d: unknown) => { validate(): void }) | undefined;
  if (!Model) throw new Error(`no schema for ${doc.apiVersion} ${doc.kind}`);
  new Model(doc).validate();
}
